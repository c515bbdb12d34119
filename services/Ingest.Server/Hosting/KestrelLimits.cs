using Ingest.Documents;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting;

/// <summary>
/// Kestrel's request body limits follow the service's: the largest request body is the store's
/// document limit (Kestrel's own default, about 28.6 MiB, would otherwise answer for documents
/// the store accepts), and the minimum body data rate comes from <see cref="HttpOptions"/>.
/// </summary>
internal sealed class KestrelLimits(DocumentStore store, IOptions<HttpOptions> http) : IConfigureOptions<KestrelServerOptions>
{
    public void Configure(KestrelServerOptions options)
    {
        var settings = http.Value;
        options.Limits.MaxRequestBodySize = store.Options.MaxBodyBytes;
        options.Limits.MinRequestBodyDataRate = settings.MinRequestBodyBytesPerSecond > 0
            ? new MinDataRate(settings.MinRequestBodyBytesPerSecond, settings.RequestBodyGracePeriod)
            : null;
    }
}
