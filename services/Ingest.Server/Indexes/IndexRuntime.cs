using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Indexes;

/// <summary>
/// The server's <see cref="IndexManager"/>: opened at start next to the document store (in the data directory's
/// <c>indexes</c> folder), the indexes declared in configuration applied, and disposed before the store. It takes the
/// store in its constructor, so the container creates the store first and disposes it last.
/// </summary>
public sealed partial class IndexRuntime : IAsyncDisposable
{
    public const string IndexesFolder = "indexes";

    private readonly DocumentStore _store;
    private readonly string _directory;
    private readonly IndexingOptions _options;
    private readonly IReadOnlyList<IndexDefinition> _configured;
    private readonly ILoggerFactory _loggerFactory;
    private readonly ILogger<IndexRuntime> _logger;
    private IndexManager? _manager;

    public IndexRuntime(
        DocumentStore store,
        DataDirectory data,
        IOptions<IndexingOptions> options,
        IOptions<ConfiguredIndexesOptions> configured,
        ILoggerFactory loggerFactory)
    {
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(configured);
        _store = store;
        _directory = Path.Combine(data.FullPath, IndexesFolder);
        _options = options.Value;
        _configured = configured.Value.ToDefinitions();
        _loggerFactory = loggerFactory;
        _logger = loggerFactory.CreateLogger<IndexRuntime>();
    }

    /// <summary>The open manager; the server opens it before it listens.</summary>
    public IndexManager Manager => _manager ?? throw new InvalidOperationException("The index manager is not open yet.");

    /// <summary>The manager once open, else null (metrics read it whenever a reader collects).</summary>
    internal IndexManager? OpenManager => Volatile.Read(ref _manager);

    /// <summary>Opens the manager (each index resumes from its last indexed etag) and applies the configured definitions.</summary>
    public async Task OpenAsync(CancellationToken cancellationToken)
    {
        if (_manager is not null)
        {
            return;
        }

        try
        {
            _manager = await IndexManager.OpenAsync(_store, _directory, _options, _loggerFactory, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is InvalidDataException or JsonException or IOException or UnauthorizedAccessException)
        {
            // The catalog of definitions itself is unreadable (one damaged index only marks that index errored).
            throw new InvalidOperationException(
                $"The indexes in '{_directory}' cannot be opened: {ex.Message} Restore the directory from a backup, or move it aside and define the indexes again (they are rebuilt from the documents).",
                ex);
        }

        for (var i = 0; i < _configured.Count; i++)
        {
            var definition = _configured[i];
            IndexPutOutcome outcome;
            try
            {
                outcome = await _manager.PutAsync(definition, cancellationToken).ConfigureAwait(false);
            }
            catch (IndexDefinitionException ex)
            {
                // Validated with the settings already; kept so that a stricter engine still names the setting.
                throw new InvalidOperationException($"{ConfiguredIndexesOptions.IndexesKey}:{i} ('{definition.Name}'): {ex.Message}", ex);
            }

            LogConfiguredIndex(_logger, definition.Name, i, outcome);
        }
    }

    public async ValueTask DisposeAsync()
    {
        var manager = Interlocked.Exchange(ref _manager, null);
        if (manager is not null)
        {
            await manager.DisposeAsync().ConfigureAwait(false);
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Index '{Name}' from Ingest:Indexes:{Position}: {Outcome}")]
    private static partial void LogConfiguredIndex(ILogger logger, string name, int position, IndexPutOutcome outcome);
}
