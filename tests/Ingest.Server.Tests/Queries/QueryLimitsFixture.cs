namespace Ingest.Server.Tests.Queries;

/// <summary>
/// One server with <see cref="HeavyQueries.Orders"/> orders for the limit tests (filling it takes seconds): a budget of
/// ten minutes (tests ask for less with <c>timeout</c>), two queries at once and eight waiting.
/// </summary>
public sealed class QueryLimitsFixture : IAsyncLifetime
{
    public const int MaxConcurrent = 2;
    public const int MaxQueued = 8;

    private LimitsServer? _server;

    internal LimitsServer Server => _server ?? throw new InvalidOperationException("not started");

    public async Task InitializeAsync()
    {
        _server = await HeavyQueries.StartAsync(
            "--Ingest:Queries:Timeout=00:10:00", $"--Ingest:Queries:MaxConcurrent={MaxConcurrent}", $"--Ingest:Queries:MaxQueued={MaxQueued}");
        await HeavyQueries.FillAsync(_server);
    }

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
