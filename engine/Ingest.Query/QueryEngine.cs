using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Query;

/// <summary>
/// The query engine of one <see cref="DocumentStore"/>, usable without a server: opens the store's indexes
/// (<see cref="IndexesFolder"/> of the data directory) and the automatic index chooser (its last-used times in
/// <see cref="QueriesFolder"/>), then answers query text. A query is run in four steps: parse; choose the index
/// (<c>from index 'X'</c> that index; <c>from Collection</c> a covering static index or an automatic one, made if need
/// be; no index field at all, a scan of the collection); optionally wait until the index passed the etag its
/// collections had when the query started; bind against the definition of the build being read and run. Client
/// mistakes are <see cref="QueryException"/>s, an index that cannot answer now a <see cref="QueryUnavailableException"/>.
/// <para>
/// The engine does not own the store: open it first, dispose it after the engine. Thread-safe.
/// </para>
/// </summary>
public sealed class QueryEngine : IAsyncDisposable
{
    /// <summary>The data directory's folder of index builds and their catalog.</summary>
    public const string IndexesFolder = "indexes";

    /// <summary>The data directory's folder of the automatic indexes' last-used times.</summary>
    public const string QueriesFolder = "queries";

    private static readonly QueryOptions Defaults = new();

    private readonly DocumentStore _store;
    private readonly string _indexesDirectory;
    private readonly string _queriesDirectory;
    private readonly QueryEngineOptions _options;
    private readonly ILoggerFactory _loggerFactory;
    private readonly TimeProvider _time;
    private readonly QueryExecutor _executor;
    private readonly Action _finished;
    private IndexSet? _indexes;
    private IndexChooser? _chooser;
    private int _running;

    /// <summary>An engine over <paramref name="store"/> with its folders in <paramref name="dataDirectory"/>; <see cref="OpenAsync"/> opens it.</summary>
    public QueryEngine(DocumentStore store, string dataDirectory, QueryEngineOptions? options = null, ILoggerFactory? loggerFactory = null, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentException.ThrowIfNullOrEmpty(dataDirectory);
        _store = store;
        _indexesDirectory = Path.Combine(dataDirectory, IndexesFolder);
        _queriesDirectory = Path.Combine(dataDirectory, QueriesFolder);
        _options = options ?? new QueryEngineOptions();
        _loggerFactory = loggerFactory ?? NullLoggerFactory.Instance;
        _time = time ?? TimeProvider.System;
        _executor = new QueryExecutor(store);
        _finished = () => Interlocked.Decrement(ref _running);
    }

    public DocumentStore Store => _store;

    /// <summary>The store's indexes: define, delete, reset, read them, wait for them.</summary>
    public IndexSet Indexes => Volatile.Read(ref _indexes) ?? throw new InvalidOperationException("The query engine is not open.");

    /// <summary>Chooses (and makes) the index that answers a collection query; sweeps the idle automatic indexes.</summary>
    public IndexChooser AutoIndexes => Volatile.Read(ref _chooser) ?? throw new InvalidOperationException("The query engine is not open.");

    /// <summary>Binds, plans and runs a query against one given reader, for callers that choose the index themselves.</summary>
    public QueryExecutor Executor => _executor;

    /// <summary>Queries started and not yet disposed (their results still being written).</summary>
    public int RunningQueries => Volatile.Read(ref _running);

    /// <summary>The indexes once open and until disposed, else false (for metrics, which may read at any time).</summary>
    public bool TryGetIndexes([NotNullWhen(true)] out IndexSet? indexes)
    {
        indexes = Volatile.Read(ref _indexes);
        return indexes is not null;
    }

    /// <summary>
    /// Opens the indexes (each resumes from its last indexed etag, a pending rebuild where it stopped) and the automatic
    /// index chooser, and starts its sweep. Does nothing when already open.
    /// </summary>
    /// <exception cref="InvalidOperationException">The catalog of index definitions cannot be read (one damaged index only marks that index errored).</exception>
    public async Task OpenAsync(CancellationToken ct = default)
    {
        if (_indexes is not null)
        {
            return;
        }

        IndexSet indexes;
        try
        {
            indexes = await IndexSet.OpenAsync(_store, _indexesDirectory, _options.Indexing, _loggerFactory, ct).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is InvalidDataException or JsonException or IOException or UnauthorizedAccessException)
        {
            throw new InvalidOperationException(
                $"The indexes in '{_indexesDirectory}' cannot be opened: {ex.Message} Restore the directory from a backup, or move it aside and define the indexes again (they are rebuilt from the documents).",
                ex);
        }

        Volatile.Write(ref _indexes, indexes);
        var chooser = IndexChooser.Open(indexes, _store, _queriesDirectory, _options.AutoIndexes, _time, _loggerFactory.CreateLogger<IndexChooser>());
        chooser.StartSweeping();
        Volatile.Write(ref _chooser, chooser);
    }

    /// <summary>
    /// Starts <paramref name="text"/>: the match set is computed when this returns, rows as they are written (pass
    /// <see cref="QueryOptions.Budget"/>'s token to the writing too). Dispose the result.
    /// </summary>
    /// <exception cref="QueryException">A mistake in the query, with its position.</exception>
    /// <exception cref="QueryUnavailableException">The index cannot answer now.</exception>
    /// <exception cref="QueryTimeoutException">The query's budget ran out.</exception>
    /// <exception cref="AutoIndexDeniedException">It needs a new automatic index and may not make one.</exception>
    [SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters", Justification = "The pair differs in its first parameter (text or a parsed query), never ambiguous, as the pair before QueryOptions was.")]
    public Task<RunningQuery> StartAsync(string text, IReadOnlyDictionary<string, JsonElement> parameters, QueryOptions? options = null, CancellationToken ct = default) =>
        StartCoreAsync(QueryParser.Parse(text), text, parameters, options ?? Defaults, ct);

    /// <summary>
    /// Starts a query already parsed, for callers that add conditions to what a user wrote (Grafana's ad hoc filters)
    /// and want errors to point at the user's text.
    /// </summary>
    [SuppressMessage("ApiDesign", "RS0026:Do not add multiple public overloads with optional parameters", Justification = "The pair differs in its first parameter (text or a parsed query), never ambiguous, as the pair before QueryOptions was.")]
    public Task<RunningQuery> StartAsync(ParsedQuery query, IReadOnlyDictionary<string, JsonElement> parameters, QueryOptions? options = null, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(query);
        return StartCoreAsync(query, null, parameters, options ?? Defaults, ct);
    }

    /// <summary><paramref name="text"/> is what the user wrote, for the span; null when the query was built, then it is formatted.</summary>
    private async Task<RunningQuery> StartCoreAsync(ParsedQuery query, string? text, IReadOnlyDictionary<string, JsonElement> parameters, QueryOptions options, CancellationToken ct)
    {
        var budget = options.Budget;
        ct = budget?.Token ?? ct;
        try
        {
            return await StartWithinBudgetAsync(query, text, parameters, options, ct).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (budget is { IsExpired: true })
        {
            throw budget.Expired();
        }
    }

    private async Task<RunningQuery> StartWithinBudgetAsync(ParsedQuery query, string? text, IReadOnlyDictionary<string, JsonElement> parameters, QueryOptions options, CancellationToken ct)
    {
        var started = Stopwatch.GetTimestamp();
        using var activity = QueryTracing.Start(text, query);
        var bound = new QueryParameters(parameters);
        var continuation = options.Continuation;

        // A group by that a map-reduce index answers exactly as query-time aggregation would reads its group rows instead,
        // or combines them (a coarser time bucket, fewer keys, a facet, a time range); aggregated rows take no token.
        var covered = Reduce.MapReduceCoverage.TryCover(query, Indexes.GetStatuses(), bound, GroupCount, out _);
        if (covered is { Plan: not null } && continuation != null)
        {
            covered = null;
        }

        query = covered?.Query ?? query;

        // A second attempt covers an index deleted or rebuilt between the choice and the read (an idle automatic index
        // swept, a definition swapped in).
        for (var attempt = 0; ; attempt++)
        {
            var source = await ChooseAsync(query, bound, options.MayCreateAutoIndexes, ct).ConfigureAwait(false);
            QueryTracing.SetIndex(activity, source.Name, source.IsAutomatic);
            if (source.Name is null)
            {
                var scan = source.MatchesNothing ? _executor.PrepareNothing(query, bound, source.Warning!) : _executor.Prepare(query, null, bound, continuation);
                return Started(new RunningQuery(_executor.Run(scan, null, ct), null, scan.SourceName, false, false, false, _store.LastEtag, started, _finished)
                {
                    Warnings = source.Warning is null ? [] : [source.Warning],
                });
            }

            var status = Indexes.GetStatus(source.Name);
            if (status is null)
            {
                if (attempt == 0 && source.IsAutomatic)
                {
                    continue;
                }

                throw NoSuchIndex(query, source.Name);
            }

            ThrowIfErrored(status);
            var etagAtStart = status.CollectionsLastEtag;
            if (options.WaitForNonStale is { } timeout)
            {
                // Waiting costs no work: it has its own bound (the timeout), so the budget's clock stops meanwhile.
                options.Budget?.Pause();
                try
                {
                    await WaitForIndexAsync(status, etagAtStart, timeout, ct).ConfigureAwait(false);
                }
                finally
                {
                    options.Budget?.Resume();
                }

                status = Indexes.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name);
            }

            var definition = status.Definition;
            var prepared = covered?.Plan is { } plan ? PrepareCombined(plan, definition, bound) : _executor.Prepare(query, definition, bound, continuation);
            var reader = Indexes.BeginRead(source.Name);
            if (reader is null || !ReadsDefinition(source.Name, definition))
            {
                reader?.Dispose();
                if (attempt == 0)
                {
                    continue;
                }

                ThrowIfErrored(Indexes.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name));
                throw new QueryUnavailableException("Index busy", $"Index '{source.Name}' changed while the query started; try again.");
            }

            try
            {
                var results = _executor.Run(prepared, reader, ct);
                return Started(new RunningQuery(results, reader, source.Name, source.IsAutomatic, source.Created, reader.LastIndexedEtag < etagAtStart, reader.LastIndexedEtag, started, _finished));
            }
            catch
            {
                reader.Dispose();
                throw;
            }
        }
    }

    /// <summary>The plan of <paramref name="text"/> against the index that would answer it (made if need be, as a query would).</summary>
    public async Task<(string IndexName, QueryPlan Plan)> ExplainAsync(string text, IReadOnlyDictionary<string, JsonElement> parameters, QueryOptions? options = null, CancellationToken ct = default)
    {
        options ??= Defaults;
        var budget = options.Budget;
        try
        {
            return await ExplainWithinBudgetAsync(text, parameters, options.MayCreateAutoIndexes, budget?.Token ?? ct).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (budget is { IsExpired: true })
        {
            throw budget.Expired();
        }
    }

    private async Task<(string IndexName, QueryPlan Plan)> ExplainWithinBudgetAsync(string text, IReadOnlyDictionary<string, JsonElement> parameters, bool mayCreate, CancellationToken ct)
    {
        var query = QueryParser.Parse(text);
        var bound = new QueryParameters(parameters);
        string? skipped = null;
        var covered = Reduce.MapReduceCoverage.TryCover(query, Indexes.GetStatuses(), bound, GroupCount, out skipped);
        query = covered?.Query ?? query;
        var source = await ChooseAsync(query, bound, mayCreate, ct).ConfigureAwait(false);
        QueryPlan plan;
        if (source.Name is null)
        {
            var scan = source.MatchesNothing ? _executor.PrepareNothing(query, bound, source.Warning!) : _executor.Prepare(query, null, bound, null);
            return (scan.SourceName, WithMapReduce(_executor.Explain(scan), covered, skipped));
        }

        var status = Indexes.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name);
        ThrowIfErrored(status);
        var prepared = covered?.Plan is { } combine ? PrepareCombined(combine, status.Definition, bound) : _executor.Prepare(query, status.Definition, bound, null);
        using (var reader = Indexes.BeginRead(source.Name))
        {
            plan = _executor.Explain(prepared, reader is not null && ReadsDefinition(source.Name, status.Definition) ? reader : null, ct);
        }

        return (source.Name, WithMapReduce(plan, covered, skipped));
    }

    /// <summary>A map-reduce index's groups now (the number of entries of a tree: no walk), 0 when it cannot be read.</summary>
    private long GroupCount(string index)
    {
        using var reader = Indexes.BeginRead(index);
        return reader?.GroupCount ?? 0;
    }

    /// <summary>
    /// Combines <paramref name="plan"/>'s index's groups; planned again when the index's definition changed since the
    /// plan was made (a rebuild swapped in), and unavailable when the new one no longer combines into the query's groups.
    /// </summary>
    private PreparedQuery PrepareCombined(Reduce.ReaggregationPlan plan, IndexDefinition definition, QueryParameters bound)
    {
        if (!ReferenceEquals(plan.Definition, definition) && !plan.Definition.Equals(definition))
        {
            plan = Reduce.MapReduceReaggregation.TryPlan(plan.Query, definition, bound, out _)
                ?? throw new QueryUnavailableException("Index busy", $"Index '{definition.Name}' changed while the query started; try again.");
        }

        return _executor.PrepareCombined(plan, bound);
    }

    /// <summary>The plan with a first step saying which map-reduce index answers a group by and why, or why one that exists does not.</summary>
    private static QueryPlan WithMapReduce(QueryPlan plan, Reduce.CoveredQuery? covered, string? skipped) =>
        covered != null
            ? plan with { Steps = [new QueryPlanStep("map-reduce-index", covered.Reason, null, []), .. plan.Steps] }
            : skipped != null
                ? plan with { Steps = [new QueryPlanStep("query-time-aggregation", skipped, null, []), .. plan.Steps] }
                : plan;

    private RunningQuery Started(RunningQuery execution)
    {
        Interlocked.Increment(ref _running);
        return execution;
    }

    private static QueryException NoSuchIndex(ParsedQuery query, string name) =>
        new(query.Source.Position, $"there is no index named '{name}'; GET /indexes lists them");

    private static void ThrowIfErrored(IndexStatus status)
    {
        if (status.State == IndexState.Errored)
        {
            throw new QueryUnavailableException(
                "Index errored",
                $"Index '{status.Definition.Name}' cannot answer queries: {status.Error} Reset it (POST /indexes/{status.Definition.Name}/reset) to rebuild it.");
        }
    }

    /// <summary>
    /// The index to read: named, chosen for the fields, or none (Name null) for a collection scan, or for a query that
    /// matches nothing (an unknown collection, a condition on fields no document has: see <see cref="AutoIndexHygiene"/>),
    /// which makes no index. <c>Warning</c> says what the query's author should know.
    /// </summary>
    private async Task<(string? Name, bool IsAutomatic, bool Created, bool MatchesNothing, string? Warning)> ChooseAsync(ParsedQuery query, QueryParameters parameters, bool mayCreate, CancellationToken ct)
    {
        if (query.Source.Kind == QuerySourceKind.Index)
        {
            return Indexes.GetStatus(query.Source.Name) is null
                ? throw NoSuchIndex(query, query.Source.Name)
                : (query.Source.Name, AutoIndexNames.IsAutomatic(query.Source.Name), false, false, null);
        }

        var needs = IndexFieldNeeds.From(QueryFieldUsage.Collect(query, parameters));
        if (needs.Count == 0)
        {
            return (null, false, false, false, AutoIndexHygiene.UnknownCollectionScan(_store, query.Source.Name));
        }

        if (!AutoIndexes.Covers(query.Source.Name, needs)
            && AutoIndexHygiene.Inspect(_store, query, needs, Indexes.GetStatuses(), _options.AutoIndexes.AutoIndexSampleDocuments) is { } nothing)
        {
            // The query's own mistakes (a missing or malformed parameter) still come first.
            AutoIndexHygiene.ResolveValues(query.Where, parameters);
            return (null, false, false, true, nothing);
        }

        var chosen = await AutoIndexes.ChooseAsync(query.Source.Name, needs, definition => _executor.Prepare(query, definition, parameters, null), mayCreate, ct).ConfigureAwait(false);
        return (chosen.Name, chosen.IsAutomatic, chosen.Created, false, null);
    }

    /// <summary>
    /// Whether the index still has <paramref name="definition"/> after a reader was taken: the status and the current
    /// build change together, so an unchanged definition means the reader reads the build it was bound against.
    /// </summary>
    private bool ReadsDefinition(string name, IndexDefinition definition) =>
        Indexes.GetStatus(name) is { } now && now.Definition.Equals(definition);

    /// <summary>
    /// Waits until the index passed <paramref name="etag"/>. A wait on a build that a side-by-side rebuild replaces ends
    /// early (false, not a timeout): it is retried once, for what is left of the timeout, on the new build.
    /// </summary>
    private async Task WaitForIndexAsync(IndexStatus status, long etag, TimeSpan timeout, CancellationToken ct)
    {
        var name = status.Definition.Name;
        var deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        for (var attempt = 0; attempt < 2; attempt++)
        {
            var left = TimeSpan.FromSeconds(Math.Max(0, deadline - Stopwatch.GetTimestamp()) / (double)Stopwatch.Frequency);
            if (await Indexes.WaitForIndexedEtagAsync(name, etag, left, ct).ConfigureAwait(false))
            {
                return;
            }

            var now = Indexes.GetStatus(name);
            if (now is null || now.State == IndexState.Errored)
            {
                ThrowIfErrored(now ?? status);
                break;
            }
        }

        var reached = Indexes.GetStatus(name)?.LastIndexedEtag ?? 0;
        throw new QueryUnavailableException(
            "Index not caught up in time",
            $"Index '{name}' indexed up to etag {reached} but its collections were at etag {etag} when the query started; it did not catch up within the waitForNonStale timeout of {timeout.TotalSeconds:0.###} s. Wait longer, or query without waitForNonStale to get the stale results.");
    }

    /// <summary>Stops the sweep and saves the last-used times, then stops the indexes. The store stays open.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _chooser, null) is { } chooser)
        {
            await chooser.DisposeAsync().ConfigureAwait(false);
        }

        if (Interlocked.Exchange(ref _indexes, null) is { } indexes)
        {
            await indexes.DisposeAsync().ConfigureAwait(false);
        }
    }
}
