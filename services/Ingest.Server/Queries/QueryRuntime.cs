using Ingest.Documents;
using Ingest.Query.AutoIndexes;
using Ingest.Server.Hosting;
using Ingest.Server.Indexes;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Queries;

/// <summary>
/// The server's <see cref="AutoIndexCatalog"/>, opened at start after the indexes (its last-used times in the data
/// directory's <c>queries</c> folder) with its sweep running, and disposed before them: it takes the
/// <see cref="IndexRuntime"/> in its constructor, so the container disposes it first.
/// </summary>
public sealed class QueryRuntime : IAsyncDisposable
{
    public const string QueriesFolder = "queries";

    private readonly IndexRuntime _indexes;
    private readonly DocumentStore _store;
    private readonly string _directory;
    private readonly AutoIndexOptions _options;
    private readonly TimeProvider _time;
    private readonly ILogger<AutoIndexCatalog> _logger;
    private AutoIndexCatalog? _catalog;

    public QueryRuntime(IndexRuntime indexes, DocumentStore store, DataDirectory data, IOptions<AutoIndexOptions> options, TimeProvider time, ILogger<AutoIndexCatalog> logger)
    {
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(options);
        _indexes = indexes;
        _store = store;
        _directory = Path.Combine(data.FullPath, QueriesFolder);
        _options = options.Value;
        _time = time;
        _logger = logger;
    }

    /// <summary>The open catalog; the server opens it before it listens.</summary>
    public AutoIndexCatalog AutoIndexes => _catalog ?? throw new InvalidOperationException("The automatic index catalog is not open yet.");

    public void Open()
    {
        if (_catalog is not null)
        {
            return;
        }

        _catalog = AutoIndexCatalog.Open(_indexes.Manager, _store, _directory, _options, _time, _logger);
        _catalog.StartSweeping();
    }

    public async ValueTask DisposeAsync()
    {
        var catalog = Interlocked.Exchange(ref _catalog, null);
        if (catalog is not null)
        {
            await catalog.DisposeAsync().ConfigureAwait(false);
        }
    }
}
