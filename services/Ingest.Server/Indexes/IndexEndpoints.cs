using Ingest.Contracts.Http;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Indexes;

namespace Ingest.Server.Indexes;

/// <summary>
/// <c>/indexes</c>: define, inspect, reset and delete indexes. Index names contain '/' (<c>Orders/ByCustomer</c>), so
/// the name is the rest of the path, percent-decoded once: <c>/indexes/Orders/ByCustomer</c> and
/// <c>/indexes/Orders%2FByCustomer</c> are the same index. A reset is a POST to the name followed by <c>/reset</c>.
/// </summary>
public static class IndexEndpoints
{
    public const string Prefix = "/indexes/";
    public const string ResetSuffix = "/reset";

    /// <summary>Definitions are small; this bounds what a PUT reads.</summary>
    public const int MaxDefinitionBytes = 1024 * 1024;

    public static IEndpointRouteBuilder MapIndexEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/indexes", GetIndexes).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapGet("/indexes/{**name}", GetIndex).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapPut("/indexes/{**name}", PutIndexAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapDelete("/indexes/{**name}", DeleteIndexAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapPost("/indexes/{**name}", ResetIndexAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static IResult GetIndexes(QueryEngine engine)
    {
        var statuses = engine.Indexes.GetStatuses();
        var items = statuses.Select(IndexViews.Summary).ToArray();
        return TypedResults.Json(new IndexListResponse(items), IngestHttpJsonContext.Default.IndexListResponse);
    }

    private static IResult GetIndex(HttpContext context, QueryEngine engine)
    {
        if (!TryReadName(context, out var name, out var problem))
        {
            return problem;
        }

        return engine.Indexes.GetStatus(name) is { } status
            ? TypedResults.Json(IndexViews.Details(status), IngestHttpJsonContext.Default.IndexDetailsResponse)
            : IndexProblems.NotFound(name);
    }

    private static async Task<IResult> PutIndexAsync(HttpContext context, QueryEngine engine)
    {
        if (!TryReadName(context, out var name, out var problem))
        {
            return problem;
        }

        var read = await RequestBody.ReadJsonAsync(context, MaxDefinitionBytes).ConfigureAwait(false);
        using var body = read.Body;
        if (body is null)
        {
            return read.Problem!;
        }

        var parsed = IndexDefinitionJson.Parse(body.Span, name);
        if (parsed.Definition is not { } definition)
        {
            return IndexProblems.InvalidDefinition(name, parsed.Errors);
        }

        IndexPutOutcome outcome;
        if (ClusterWrites.LogOf(context) is not null)
        {
            // Through the log: every node applies it (IndexClusterHandler); this one answers once it has.
            var record = new ClusterRecord(IndexClusterHandler.RecordKind, name, body.Span.ToArray(), [new(IndexClusterHandler.Operation, "put"u8.ToArray())]);
            var written = await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
            if (written.Failure is { } failure)
            {
                return IndexProblems.InvalidDefinition(name, [new IndexDefinitionError(string.Empty, failure)]);
            }

            outcome = context.RequestServices.GetRequiredService<IndexClusterHandler>().TakeOutcome(written.Position) ?? IndexPutOutcome.Unchanged;
        }
        else
        {
            // An IndexDefinitionException is the same 400 as a parse error (ProblemExceptionHandler).
            outcome = await engine.Indexes.PutAsync(definition, context.RequestAborted).ConfigureAwait(false);
        }

        var status = outcome switch
        {
            IndexPutOutcome.Created => StatusCodes.Status201Created,
            IndexPutOutcome.Rebuilding => StatusCodes.Status202Accepted,
            _ => StatusCodes.Status200OK,
        };
        if (outcome == IndexPutOutcome.Created)
        {
            context.Response.Headers.Location = Prefix + name;
        }

        return TypedResults.Json(new IndexPutResponse(name, IndexViews.OutcomeName(outcome)), IngestHttpJsonContext.Default.IndexPutResponse, statusCode: status);
    }

    private static async Task<IResult> DeleteIndexAsync(HttpContext context, QueryEngine engine)
    {
        if (!TryReadName(context, out var name, out var problem))
        {
            return problem;
        }

        if (ClusterWrites.LogOf(context) is not null)
        {
            if (engine.Indexes.GetStatus(name) is null)
            {
                return IndexProblems.NotFound(name);
            }

            var record = new ClusterRecord(IndexClusterHandler.RecordKind, name, ReadOnlyMemory<byte>.Empty, [new(IndexClusterHandler.Operation, "delete"u8.ToArray())]);
            await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
            return TypedResults.NoContent();
        }

        return await engine.Indexes.DeleteAsync(name, context.RequestAborted).ConfigureAwait(false)
            ? TypedResults.NoContent()
            : IndexProblems.NotFound(name);
    }

    /// <summary><c>POST /indexes/{name}/reset</c>: the route takes the whole rest of the path, so the suffix is split off here.</summary>
    private static async Task<IResult> ResetIndexAsync(HttpContext context, QueryEngine engine)
    {
        if (!TryReadName(context, out var path, out var problem))
        {
            return problem;
        }

        if (!path.EndsWith(ResetSuffix, StringComparison.Ordinal) || path.Length == ResetSuffix.Length)
        {
            return ApiProblems.NotFound(
                "No such action",
                $"POST {Prefix}{ApiProblems.Shorten(path)} is not an action; reset an index with POST {Prefix}{{name}}{ResetSuffix}.");
        }

        var name = path[..^ResetSuffix.Length];
        if (ClusterWrites.LogOf(context) is not null)
        {
            // Through the log, as a definition is: every node rebuilds (IndexClusterHandler); this one answers once it has.
            if (engine.Indexes.GetStatus(name) is null)
            {
                return IndexProblems.NotFound(name);
            }

            var record = new ClusterRecord(IndexClusterHandler.RecordKind, name, ReadOnlyMemory<byte>.Empty, [new(IndexClusterHandler.Operation, "reset"u8.ToArray())]);
            await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
        }
        else if (!await engine.Indexes.ResetAsync(name, context.RequestAborted).ConfigureAwait(false))
        {
            return IndexProblems.NotFound(name);
        }

        context.Response.Headers.Location = Prefix + name;
        return TypedResults.Json(new IndexPutResponse(name, IndexViews.OutcomeName(IndexPutOutcome.Rebuilding)), IngestHttpJsonContext.Default.IndexPutResponse, statusCode: StatusCodes.Status202Accepted);
    }

    private static bool TryReadName(HttpContext context, out string name, out IResult problem) =>
        RestOfPath.TryRead(context, Prefix, "name", "/indexes/Orders/ByCustomer", out name, out problem);
}
