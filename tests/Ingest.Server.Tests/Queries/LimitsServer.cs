using Ingest.Documents;
using Ingest.Query;
using Ingest.Server.Queries;
using Ingest.Server.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Queries;

/// <summary>A running server of the query limit tests, with its own data directory.</summary>
internal sealed class LimitsServer(TestDirectory directory, RunningServer server) : IAsyncDisposable
{
    public HttpClient Client => server.Client;

    public Uri Address => server.Client.BaseAddress!;

    public DocumentStore Store => server.Services.GetRequiredService<DocumentStore>();

    public QueryEngine Engine => server.Services.GetRequiredService<QueryEngine>();

    public QueryGate Gate => server.Services.GetRequiredService<QueryGate>();

    public async ValueTask DisposeAsync()
    {
        await server.DisposeAsync();
        directory.Dispose();
    }
}
