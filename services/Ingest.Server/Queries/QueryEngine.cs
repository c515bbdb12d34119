using System.Diagnostics;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Storage;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Server.Indexes;

namespace Ingest.Server.Queries;

/// <summary>
/// Runs a query request: parse; choose the index (<c>from index 'X'</c> that index; <c>from Collection</c> a covering
/// static index or an automatic one, made if need be; no index field at all, a scan of the collection); optionally wait
/// until the index passed the etag its collections had when the query started; bind against the definition of the
/// build being read; run. Client mistakes are <see cref="QueryException"/>s, an index that cannot answer a
/// <see cref="QueryUnavailableException"/>.
/// </summary>
public sealed class QueryEngine
{
    private readonly IndexRuntime _indexes;
    private readonly QueryRuntime _queries;
    private readonly DocumentStore _store;
    private readonly QueryRunner _runner;
    private readonly Action _finished;
    private int _running;

    public QueryEngine(IndexRuntime indexes, QueryRuntime queries, DocumentStore store)
    {
        _indexes = indexes;
        _queries = queries;
        _store = store;
        _runner = new QueryRunner(store);
        _finished = () => Interlocked.Decrement(ref _running);
    }

    /// <summary>Queries started and not yet disposed (their results still being written).</summary>
    public int RunningQueries => Volatile.Read(ref _running);

    /// <summary>Starts <paramref name="text"/>: the match set is computed when this returns, rows as they are written. Dispose the result.</summary>
    public Task<QueryExecution> StartAsync(string text, IReadOnlyDictionary<string, JsonElement> parameters, TimeSpan? waitForNonStale, string? continuation, CancellationToken ct) =>
        StartCoreAsync(QueryParser.Parse(text), text, parameters, waitForNonStale, continuation, ct);

    /// <summary>
    /// Starts a query already parsed, for callers that add conditions to what a user wrote (Grafana's ad hoc filters)
    /// and want errors to point at the user's text.
    /// </summary>
    public Task<QueryExecution> StartAsync(ParsedQuery query, IReadOnlyDictionary<string, JsonElement> parameters, TimeSpan? waitForNonStale, string? continuation, CancellationToken ct)
    {
        ArgumentNullException.ThrowIfNull(query);
        return StartCoreAsync(query, null, parameters, waitForNonStale, continuation, ct);
    }

    /// <summary><paramref name="text"/> is what the user wrote, for the span; null when the query was built, then it is formatted.</summary>
    private async Task<QueryExecution> StartCoreAsync(ParsedQuery query, string? text, IReadOnlyDictionary<string, JsonElement> parameters, TimeSpan? waitForNonStale, string? continuation, CancellationToken ct)
    {
        var started = Stopwatch.GetTimestamp();
        using var activity = Telemetry.QueryTracing.Start(text, query);
        var bound = new QueryParameters(parameters);

        // A second attempt covers an index deleted or rebuilt between the choice and the read (an idle automatic index
        // swept, a definition swapped in).
        for (var attempt = 0; ; attempt++)
        {
            var source = await ChooseAsync(query, bound, ct).ConfigureAwait(false);
            Telemetry.QueryTracing.SetIndex(activity, source.Name, source.IsAutomatic);
            if (source.Name is null)
            {
                var scan = _runner.Prepare(query, null, bound, continuation);
                return Started(new QueryExecution(_runner.Run(scan, null, ct), null, scan.SourceName, false, false, false, _store.LastEtag, started, _finished));
            }

            var status = _indexes.Manager.GetStatus(source.Name);
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
            if (waitForNonStale is { } timeout)
            {
                await WaitForIndexAsync(status, etagAtStart, timeout, ct).ConfigureAwait(false);
                status = _indexes.Manager.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name);
            }

            var definition = status.Definition;
            var prepared = _runner.Prepare(query, definition, bound, continuation);
            var reader = _indexes.Manager.BeginRead(source.Name);
            if (reader is null || !ReadsDefinition(source.Name, definition))
            {
                reader?.Dispose();
                if (attempt == 0)
                {
                    continue;
                }

                ThrowIfErrored(_indexes.Manager.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name));
                throw new QueryUnavailableException(StatusCodes.Status503ServiceUnavailable, "Index busy", $"Index '{source.Name}' changed while the query started; try again.");
            }

            try
            {
                var results = _runner.Run(prepared, reader, ct);
                return Started(new QueryExecution(results, reader, source.Name, source.IsAutomatic, source.Created, reader.LastIndexedEtag < etagAtStart, reader.LastIndexedEtag, started, _finished));
            }
            catch
            {
                reader.Dispose();
                throw;
            }
        }
    }

    /// <summary>The plan of <paramref name="text"/> against the index that would answer it (made if need be, as a query would).</summary>
    public async Task<(string IndexName, QueryPlan Plan)> ExplainAsync(string text, IReadOnlyDictionary<string, JsonElement> parameters, CancellationToken ct)
    {
        var query = QueryParser.Parse(text);
        var bound = new QueryParameters(parameters);
        var source = await ChooseAsync(query, bound, ct).ConfigureAwait(false);
        if (source.Name is null)
        {
            var scan = _runner.Prepare(query, null, bound, null);
            return (scan.SourceName, _runner.Explain(scan));
        }

        var status = _indexes.Manager.GetStatus(source.Name) ?? throw NoSuchIndex(query, source.Name);
        ThrowIfErrored(status);
        var prepared = _runner.Prepare(query, status.Definition, bound, null);
        using var reader = _indexes.Manager.BeginRead(source.Name);
        return (source.Name, _runner.Explain(prepared, reader is not null && ReadsDefinition(source.Name, status.Definition) ? reader : null));
    }

    private QueryExecution Started(QueryExecution execution)
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
                StatusCodes.Status503ServiceUnavailable,
                "Index errored",
                $"Index '{status.Definition.Name}' cannot answer queries: {status.Error} Reset it (POST /indexes/{status.Definition.Name}/reset) to rebuild it.");
        }
    }

    /// <summary>The index to read: named, chosen for the fields, or none (Name null) for a collection scan.</summary>
    private async Task<(string? Name, bool IsAutomatic, bool Created)> ChooseAsync(ParsedQuery query, QueryParameters parameters, CancellationToken ct)
    {
        if (query.Source.Kind == QuerySourceKind.Index)
        {
            return _indexes.Manager.GetStatus(query.Source.Name) is null
                ? throw NoSuchIndex(query, query.Source.Name)
                : (query.Source.Name, AutoIndexNames.IsAutomatic(query.Source.Name), false);
        }

        var needs = IndexFieldNeeds.From(QueryFieldUsage.Collect(query, parameters));
        if (needs.Count == 0)
        {
            return (null, false, false);
        }

        var chosen = await _queries.AutoIndexes.ChooseAsync(query.Source.Name, needs, definition => _runner.Prepare(query, definition, parameters, null), ct).ConfigureAwait(false);
        return (chosen.Name, chosen.IsAutomatic, chosen.Created);
    }

    /// <summary>
    /// Whether the index still has <paramref name="definition"/> after a reader was taken: the status and the current
    /// build change together, so an unchanged definition means the reader reads the build it was bound against.
    /// </summary>
    private bool ReadsDefinition(string name, IndexDefinition definition) =>
        _indexes.Manager.GetStatus(name) is { } now && now.Definition.Equals(definition);

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
            if (await _indexes.Manager.WaitForIndexedEtagAsync(name, etag, left, ct).ConfigureAwait(false))
            {
                return;
            }

            var now = _indexes.Manager.GetStatus(name);
            if (now is null || now.State == IndexState.Errored)
            {
                ThrowIfErrored(now ?? status);
                break;
            }
        }

        var reached = _indexes.Manager.GetStatus(name)?.LastIndexedEtag ?? 0;
        throw new QueryUnavailableException(
            StatusCodes.Status503ServiceUnavailable,
            "Index not caught up in time",
            $"Index '{name}' indexed up to etag {reached} but its collections were at etag {etag} when the query started; it did not catch up within the waitForNonStale timeout of {timeout.TotalSeconds:0.###} s. Wait longer, or query without waitForNonStale to get the stale results.");
    }
}
