using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting.Https;

/// <summary>
/// Makes the certificate of <see cref="HttpsOptions"/> Kestrel's HTTPS default: it serves <c>Ingest:Https:Url</c> and
/// every other https:// address without a certificate of its own (from Urls, HTTPS_PORTS or a Kestrel endpoint), in
/// place of <c>Kestrel:Certificates:Default</c>. Endpoints keep Kestrel's default protocols, HTTP/1.1 and HTTP/2,
/// which TLS offers by ALPN. Kestrel's options are made as the application is built, before the settings are
/// validated, so the certificate is loaded only when the first HTTPS endpoint is bound, once; disposed with the
/// service provider.
/// </summary>
internal sealed class KestrelHttps(IOptions<HttpsOptions> https) : IConfigureOptions<KestrelServerOptions>, IDisposable
{
    private readonly Lock _lock = new();
    private ServerCertificate? _certificate;

    public void Configure(KestrelServerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.ConfigureHttpsDefaults(defaults =>
        {
            if (Certificate() is { } certificate)
            {
                defaults.ServerCertificate = certificate.Certificate;
                defaults.ServerCertificateChain = certificate.Chain;
            }
        });
    }

    public void Dispose() => _certificate?.Dispose();

    private ServerCertificate? Certificate()
    {
        var settings = https.Value;
        if (string.IsNullOrEmpty(settings.CertificatePath))
        {
            return null;
        }

        lock (_lock)
        {
            return _certificate ??= ServerCertificate.Load(settings);
        }
    }
}
