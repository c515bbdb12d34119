using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Server.Queries;

namespace Ingest.Server.Grafana;

/// <summary>
/// Answers the simPod JSON data source's calls with Ingest queries run by <see cref="QueryEngine"/>: <c>/query</c>
/// (time series for <c>group by time()</c> with aggregates, tables otherwise), <c>/variable</c>, <c>/tag-keys</c>,
/// <c>/tag-values</c>, <c>/metrics</c> and <c>/metric-payload-options</c>. Each method returns the response body; a
/// target whose query fails throws a <see cref="GrafanaTargetException"/> that names it (the server's exception handler
/// makes it the problem the panel shows). Every query takes its own turn and time budget from <see cref="QueryGate"/>,
/// as a <c>/queries</c> request does; a budget that runs out or a full gate is the problem the panel shows. The editors'
/// calls (metrics, payload options, tag keys and values) are in GrafanaDataSource.Editors.cs.
/// </summary>
internal sealed partial class GrafanaDataSource
{
    /// <summary>Values a variable or tag drop-down lists at most.</summary>
    public const int MaxListedValues = 1000;

    /// <summary>How long a query that has just made its automatic index waits for it, so a new panel does not start empty.</summary>
    private static readonly TimeSpan NewIndexWait = TimeSpan.FromSeconds(10);

    private readonly QueryEngine _engine;
    private readonly GrafanaTargetResolver _resolver;
    private readonly GrafanaFieldCatalog _catalog;
    private readonly SavedQueryStore _saved;
    private readonly TimeProvider _time;
    private readonly QueryGate _gate;
    private readonly IHttpContextAccessor _http;

    /// <param name="http">The request being answered: its caller (may it make automatic indexes?) and its abort token.</param>
    public GrafanaDataSource(QueryEngine engine, GrafanaTargetResolver resolver, GrafanaFieldCatalog catalog, SavedQueryStore saved, TimeProvider time, QueryGate gate, IHttpContextAccessor http)
    {
        _gate = gate;
        _http = http;
        _engine = engine;
        _resolver = resolver;
        _catalog = catalog;
        _saved = saved;
        _time = time;
    }

    /// <summary>Runs a resolved query and reads its rows; a query that made its automatic index waits for it once.</summary>
    public async Task<ResultTable> RunAsync(ParsedQuery query, IReadOnlyDictionary<string, JsonElement> parameters, CancellationToken ct)
    {
        var context = _http.HttpContext ?? throw new InvalidOperationException("Grafana queries run within a request.");
        using var ticket = await _gate.EnterAsync(context, null).ConfigureAwait(false);
        ct = ticket.Token; // the budget's, linked with the request's abort (the ct passed in)
        try
        {
            var execution = await _engine.StartAsync(query, parameters, ticket.Options(null, null), ct).ConfigureAwait(false);
            if (execution.IndexCreated)
            {
                execution.Dispose();
                try
                {
                    execution = await _engine.StartAsync(query, parameters, ticket.Options(NewIndexWait, null), ct).ConfigureAwait(false);
                }
                catch (QueryUnavailableException)
                {
                    execution = await _engine.StartAsync(query, parameters, ticket.Options(null, null), ct).ConfigureAwait(false);
                }
            }

            using (execution)
            {
                return await ResultTable.ReadAsync(execution, query, ResultTable.ReduceOf(_engine, query), ct).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (ticket.Budget.IsExpired)
        {
            throw ticket.Budget.Expired();
        }
    }

    public async Task<IResult> QueryAsync(JsonElement body, CancellationToken ct)
    {
        var request = GrafanaRequestReader.ReadQuery(body, _time);
        var (_, interval) = GrafanaBucket.Choose(request.From, request.To, request.IntervalMs, request.MaxDataPoints);
        var answers = new List<(string RefId, ResultTable Table)>(request.Targets.Count);
        var tables = new List<IDisposable>(request.Targets.Count);
        try
        {
            foreach (var target in request.Targets)
            {
                ResolvedTarget? resolved = null;
                try
                {
                    resolved = _resolver.Resolve(target.Target, target.Payload, request.From, request.To, interval, request.Filters);
                    var table = await RunAsync(resolved.Query, resolved.Parameters, ct).ConfigureAwait(false);
                    tables.Add(table);
                    answers.Add((target.RefId, table));
                }
                catch (QueryException ex)
                {
                    throw new GrafanaTargetException(GrafanaTargetResolver.Describe(ex, target.RefId, resolved?.Origin, request.Filters), target.RefId, ex);
                }
                catch (QueryUnavailableException ex)
                {
                    throw new GrafanaTargetException($"query {target.RefId}: {ex.Message}", target.RefId, ex);
                }
            }
        }
        catch
        {
            tables.ForEach(static t => t.Dispose());
            throw;
        }

        return GrafanaResponseWriter.Json(writer =>
        {
            writer.WriteStartArray();
            foreach (var (refId, table) in answers)
            {
                if (table.IsTimeSeries)
                {
                    GrafanaResponseWriter.WriteSeries(writer, refId, table);
                }
                else
                {
                    GrafanaResponseWriter.WriteTable(writer, refId, table);
                }
            }

            writer.WriteEndArray();
        }, tables);
    }

    /// <summary>
    /// <c>{payload: {target: "query text"}, range}</c> to <c>[{"__text", "__value"}]</c>: a facet's values, else the
    /// columns named <c>__text</c>/<c>__value</c>, else the first column; distinct, in the query's order.
    /// </summary>
    public async Task<IResult> VariableAsync(JsonElement body, CancellationToken ct)
    {
        var payload = GrafanaRequestReader.ReadPayload(body) ?? default;
        var text = GrafanaRequestReader.ReadString(payload, "target") ?? GrafanaRequestReader.ReadString(payload, "query") ?? GrafanaRequestReader.ReadString(body, "target");
        if (string.IsNullOrWhiteSpace(text))
        {
            return GrafanaProblems.BadRequest("The variable has no query: put the query text in the variable's editor (payload.target).");
        }

        var (from, to) = GrafanaRequestReader.ReadRange(body, _time, required: false);
        var (_, interval) = GrafanaBucket.Choose(from, to, 0, 0);
        ResolvedTarget? resolved = null;
        ResultTable table;
        try
        {
            resolved = _resolver.Resolve(text.Trim(), null, from, to, interval, []);
            table = await RunAsync(resolved.Query, resolved.Parameters, ct).ConfigureAwait(false);
        }
        catch (QueryException ex)
        {
            throw new GrafanaTargetException(GrafanaTargetResolver.Describe(ex, "variable", resolved?.Origin, []), "variable", ex);
        }
        catch (QueryUnavailableException ex)
        {
            throw new GrafanaTargetException(ex.Message, "variable", ex);
        }

        var columns = table.Columns.Select(static c => c.Name).ToList();
        var valueColumn = Math.Max(0, FirstOf(columns, "__value", "value", "range"));
        var textColumn = columns.IndexOf("__text") is var t and >= 0 ? t : valueColumn;
        var seen = new HashSet<string>(StringComparer.Ordinal);
        return GrafanaResponseWriter.Json(writer =>
        {
            writer.WriteStartArray();
            foreach (var row in table.Rows)
            {
                if (columns.Count == 0 || seen.Count >= MaxListedValues || !seen.Add(ResultValues.Text(row[valueColumn])))
                {
                    continue;
                }

                writer.WriteStartObject();
                writer.WriteString("__text", ResultValues.Text(row[textColumn]));
                writer.WriteString("__value", ResultValues.Text(row[valueColumn]));
                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        }, [table]);
    }

    private static int FirstOf(List<string> columns, params ReadOnlySpan<string> names)
    {
        foreach (var name in names)
        {
            var i = columns.IndexOf(name);
            if (i >= 0)
            {
                return i;
            }
        }

        return -1;
    }
}
