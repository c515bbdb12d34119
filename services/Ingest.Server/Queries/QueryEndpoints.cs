using System.Text.Json;
using Ingest.Query;
using Ingest.Query.Syntax;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Queries;

/// <summary>
/// <c>POST /queries</c>, <c>GET /queries</c> and <c>GET /queries/explain</c>. A query's response is written as it is
/// computed, straight to the body:
/// <code>{"results":[...],"totalResults":n,"isStale":false,"indexName":"Auto/Orders/ByTotal","automaticIndex":true,
///  "indexCreated":false,"lastIndexedEtag":n,"durationMs":1.2,"warnings":["unknown field 'Custmer' in Orders ..."],"continuation":"..."|null}</code>
/// (<c>warnings</c> only when there are any: an unknown collection or field, for which the query matched nothing and no
/// index was made).
/// Rows are flushed every few hundred, so the first bytes leave long before the last row is read and neither the
/// server nor the client holds the whole result. A client mistake is a 400 problem with the query's <c>line</c> and
/// <c>column</c>, an index that cannot answer a 503: the engine's exceptions become problems in
/// <see cref="ProblemExceptionHandler"/>, while nothing of the response has gone out.
/// <para>
/// Each query takes a turn from <see cref="QueryGate"/> (429 when none is free) and runs within its time budget (503 when
/// it runs out before the answer starts; after, the connection is cut, as for any failure midway); a client that goes
/// away cancels the budget's token, which stops the engine's loops, not only the writing.
/// </para>
/// </summary>
public static partial class QueryEndpoints
{
    public static IEndpointRouteBuilder MapQueryEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/queries", GetQueryAsync).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapPost("/queries", PostQueryAsync).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapGet("/queries/explain", ExplainAsync).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        return endpoints;
    }

    private static Task GetQueryAsync(HttpContext context, QueryEngine engine, QueryGate gate, ILogger<QueryEngine> logger) =>
        QueryRequestReader.TryReadQueryString(context.Request, out var request, out var problem)
            ? RunAsync(context, request!, engine, gate, logger)
            : problem!.ExecuteAsync(context);

    private static async Task PostQueryAsync(HttpContext context, QueryEngine engine, QueryGate gate, ILogger<QueryEngine> logger)
    {
        if (!QueryRequestReader.TryReadTimeout(context.Request, out var timeout, out var badTimeout))
        {
            await badTimeout!.ExecuteAsync(context).ConfigureAwait(false);
            return;
        }

        if (!JsonContentType.IsJson(context.Request.ContentType))
        {
            await ApiProblems.UnsupportedMediaType(context.Request.ContentType).ExecuteAsync(context).ConfigureAwait(false);
            return;
        }

        var read = await RequestBody.ReadAsync(context, QueryRequestReader.MaxBodyBytes).ConfigureAwait(false);
        QueryRequest? request;
        IResult? problem;
        using (var body = read.Body)
        {
            if (body is null)
            {
                await read.Problem!.ExecuteAsync(context).ConfigureAwait(false);
                return;
            }

            QueryRequestReader.TryReadBody(body.Span, out request, out problem);
        }

        await (request is null ? problem!.ExecuteAsync(context) : RunAsync(context, request.Timeout is null ? request with { Timeout = timeout } : request, engine, gate, logger)).ConfigureAwait(false);
    }

    private static async Task<IResult> ExplainAsync(HttpContext context, QueryEngine engine, QueryGate gate)
    {
        if (!QueryRequestReader.TryReadQueryString(context.Request, out var request, out var problem))
        {
            return problem!;
        }

        using var ticket = await gate.EnterAsync(context, request!.Timeout).ConfigureAwait(false);
        var (indexName, plan) = await engine.ExplainAsync(request.Text, request.Parameters, ticket.Options(null, null), ticket.Token).ConfigureAwait(false);
        return TypedResults.Json(new QueryExplainResponse(indexName, plan), QueryJsonContext.Default.QueryExplainResponse);
    }

    private static async Task RunAsync(HttpContext context, QueryRequest request, QueryEngine engine, QueryGate gate, ILogger logger)
    {
        if (!QueryParameters.TryGetSingle(context.Request, "format", out var formatText, out var badFormat))
        {
            await badFormat!.ExecuteAsync(context).ConfigureAwait(false);
            return;
        }

        if (!TryReadFormat(formatText, out var format))
        {
            await ApiProblems.BadParameter("format", formatText, "json (the default), rows (a flat JSON array for Grafana's Infinity) or csv").ExecuteAsync(context).ConfigureAwait(false);
            return;
        }

        using var ticket = await gate.EnterAsync(context, request.Timeout).ConfigureAwait(false);
        if (format != ResultFormat.Json)
        {
            await (await RunAsTableAsync(request, format, engine, ticket).ConfigureAwait(false)).ExecuteAsync(context).ConfigureAwait(false);
            return;
        }

        var ct = ticket.Token;
        using (var execution = await engine.StartAsync(request.Text, request.Parameters, ticket.Options(request.WaitForNonStale, request.Continuation), ct).ConfigureAwait(false))
        {
            var response = context.Response;
            response.StatusCode = StatusCodes.Status200OK;
            response.ContentType = "application/json; charset=utf-8";
            var writer = new Utf8JsonWriter(response.Body);
            await using (writer.ConfigureAwait(false))
            {
                try
                {
                    await WriteAsync(writer, execution, ct).ConfigureAwait(false);
                }
                catch (QueryException) when (!response.HasStarted)
                {
                    // Raised before the first flush (aggregation computes every row first: too many time buckets,
                    // say): nothing has gone out, so the buffered start of the answer is dropped for a problem.
                    writer.Reset(Stream.Null);
                    throw;
                }
                catch (OperationCanceledException) when (ticket.Budget.IsExpired)
                {
                    if (!response.HasStarted)
                    {
                        writer.Reset(Stream.Null);
                        throw ticket.Budget.Expired();
                    }

                    // Part of the answer is out: cutting the connection is the only way to say it is incomplete.
                    LogTimedOutMidway(logger, QueryTimeoutException.Describe(ticket.Budget.Timeout), request.Text);
                    context.Abort();
                }
                catch (Exception ex) when (!ct.IsCancellationRequested)
                {
                    // The status line and part of the body are out: a problem cannot follow them. Cutting the
                    // connection tells the client the body is incomplete rather than letting it pass for a short page.
                    LogFailedMidway(logger, request.Text, ex);
                    context.Abort();
                }
                catch (OperationCanceledException)
                {
                    // The client went away.
                }
            }
        }
    }

    private static bool TryReadFormat(string? text, out ResultFormat format)
    {
        format = ResultFormat.Json;
        return string.IsNullOrEmpty(text) || (Enum.TryParse(text, ignoreCase: true, out format) && Enum.IsDefined(format) && !char.IsDigit(text[0]));
    }

    /// <summary>
    /// <c>format=rows</c> and <c>format=csv</c>: the rows are read whole (documents and projections at most
    /// <see cref="ResultTable.MaxRows"/> unless the query's limit is smaller) and written flat.
    /// </summary>
    private static async Task<IResult> RunAsTableAsync(QueryRequest request, ResultFormat format, QueryEngine engine, QueryTicket ticket)
    {
        var query = ResultTable.CapRows(QueryParser.Parse(request.Text));
        using var execution = await engine.StartAsync(query, request.Parameters, ticket.Options(request.WaitForNonStale, request.Continuation), ticket.Token).ConfigureAwait(false);
        ResultTable table;
        try
        {
            table = await ResultTable.ReadAsync(execution, query, ResultTable.ReduceOf(engine, query), ticket.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (ticket.Budget.IsExpired)
        {
            throw ticket.Budget.Expired();
        }

        using var owned = table;
        return format == ResultFormat.Csv
            ? TypedResults.Bytes(ResultTableWriter.ToCsv(table), "text/csv; charset=utf-8")
            : TypedResults.Bytes(ResultTableWriter.ToJsonRows(table), "application/json; charset=utf-8");
    }

    private static async Task WriteAsync(Utf8JsonWriter writer, RunningQuery execution, CancellationToken ct)
    {
        // Buffered until the results' first flush (every few hundred rows): the answer starts long before its last
        // row, yet an error found while the first rows are computed can still be a problem instead of a cut connection.
        writer.WriteStartObject();
        writer.WriteStartArray("results");
        await execution.Results.WriteResultsAsync(writer, async flushCt => await writer.FlushAsync(flushCt).ConfigureAwait(false), ct).ConfigureAwait(false);
        writer.WriteEndArray();
        writer.WriteNumber("totalResults", execution.Results.TotalResults);
        writer.WriteBoolean("isStale", execution.IsStale);
        writer.WriteString("indexName", execution.IndexName);
        writer.WriteBoolean("automaticIndex", execution.IsAutomaticIndex);
        writer.WriteBoolean("indexCreated", execution.IndexCreated);
        writer.WriteNumber("lastIndexedEtag", execution.LastIndexedEtag);
        writer.WriteNumber("durationMs", Math.Round(execution.ElapsedMilliseconds, 3));
        if (execution.Warnings.Count > 0)
        {
            writer.WriteStartArray("warnings");
            foreach (var warning in execution.Warnings)
            {
                writer.WriteStringValue(warning);
            }

            writer.WriteEndArray();
        }

        if (execution.Results.Continuation is { } continuation)
        {
            writer.WriteString("continuation", continuation);
        }
        else
        {
            writer.WriteNull("continuation");
        }

        writer.WriteEndObject();
        await writer.FlushAsync(ct).ConfigureAwait(false);
    }

    [LoggerMessage(EventId = 1401, Level = LogLevel.Warning, Message = "A query ran out of its time budget of {Budget} after its response started; the connection was cut: {Query}")]
    private static partial void LogTimedOutMidway(ILogger logger, string budget, string query);

    [LoggerMessage(EventId = 1400, Level = LogLevel.Error, Message = "A query failed after its response started; the connection was cut: {Query}")]
    private static partial void LogFailedMidway(ILogger logger, string query, Exception exception);
}
