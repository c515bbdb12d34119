using Ingest.Query;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Syntax;
using Ingest.Server.Hosting.Http;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Queries;

/// <summary>RFC 7807 problems of the <c>/queries</c> endpoints.</summary>
internal static class QueryProblems
{
    public const string InvalidQueryType = "urn:ingest:problem:invalid-query";

    /// <summary>
    /// 400 with the message (<c>line 1, col 32: expected ...</c>) and the position as <c>line</c>, <c>column</c>, <c>offset</c>;
    /// an error that is about no place in the text (a continuation token from a rebuilt index) has no position.
    /// </summary>
    public static IResult Invalid(QueryException error) =>
        TypedResults.Problem(
            title: "Invalid query",
            detail: error.Message,
            statusCode: StatusCodes.Status400BadRequest,
            type: InvalidQueryType,
            extensions: error.Position.Line <= 0
                ? null
                : new Dictionary<string, object?>
                {
                    ["line"] = error.Position.Line,
                    ["column"] = error.Position.Column,
                    ["offset"] = error.Position.Offset,
                });

    /// <summary>503: the index is errored, changed while the query started, or did not catch up in time.</summary>
    public static IResult Unavailable(QueryUnavailableException error) =>
        TypedResults.Problem(title: error.Title, detail: error.Message, statusCode: StatusCodes.Status503ServiceUnavailable);

    /// <summary>
    /// 503 for a query that ran out of its time budget. Not 408, which says the client was too slow to send its request
    /// (and which clients may repeat on their own, running the same heavy query again); not a 4xx at all, since the
    /// query is valid and a server with a larger budget, or a quieter one, answers it. No Retry-After: the same query
    /// is likely to run out again; the detail says what to change.
    /// </summary>
    public static IResult TimedOut(QueryTimeoutException error, HttpContext context)
    {
        var configured = context.RequestServices.GetRequiredService<IOptions<QueryLimitOptions>>().Value.Timeout;
        var budget = QueryTimeoutException.Describe(error.Budget);
        var asked = error.Budget < configured ? $" (the request asked for {budget}; the server allows up to {QueryTimeoutException.Describe(configured)})" : string.Empty;
        var detail = $"The query did not finish within its time budget of {budget}{asked}. Narrow it (a where that matches fewer documents, a limit, fewer group keys), "
            + "read a large answer in pages (limit and continuation), or have an administrator raise "
            + $"{QuerySettings.SectionName}:{nameof(QueryLimitOptions.Timeout)}.";
        return TypedResults.Problem(
            title: "Query timed out",
            detail: detail,
            statusCode: StatusCodes.Status503ServiceUnavailable,
            type: "urn:ingest:problem:query-timeout",
            extensions: new Dictionary<string, object?> { ["message"] = detail, ["budgetMs"] = error.Budget.TotalMilliseconds });
    }

    /// <summary>429 with Retry-After: every query slot is taken and the wait queue full.</summary>
    public static IResult TooMany(QueryRejectedException error, HttpContext context)
    {
        context.Response.Headers.RetryAfter = "1";
        return TypedResults.Problem(
            title: "Too many queries",
            detail: error.Message,
            statusCode: StatusCodes.Status429TooManyRequests,
            type: "urn:ingest:problem:too-many-queries",
            extensions: new Dictionary<string, object?> { ["message"] = error.Message });
    }

    /// <summary>403: a read-only key's query needs an automatic index that does not exist yet (or a wider one).</summary>
    public static IResult AutoIndexDenied(AutoIndexDeniedException error)
    {
        var detail = $"{error.Message} A key with the 'read' scope only may not make automatic indexes: define the index "
            + $"(PUT /indexes/{error.IndexName} with an admin key; its fields are {string.Join(", ", error.Fields)}), run this query once with a key that has "
            + $"the 'write' or 'admin' scope, or set {QuerySettings.SectionName}:{nameof(QueryLimitOptions.ReadKeysCreateAutoIndexes)} to true.";
        return TypedResults.Problem(
            title: "Automatic index needed",
            detail: detail,
            statusCode: StatusCodes.Status403Forbidden,
            type: "urn:ingest:problem:auto-index-denied",
            extensions: new Dictionary<string, object?>
            {
                ["message"] = detail,
                ["requiredScope"] = "write",
                ["index"] = error.IndexName,
                ["collection"] = error.Collection,
                ["fields"] = error.Fields,
            });
    }

    /// <summary>409: the collection has as many automatic indexes as it may; the query needs another.</summary>
    public static IResult AutoIndexLimit(AutoIndexLimitException error) =>
        TypedResults.Problem(
            title: "Too many automatic indexes",
            detail: error.Message,
            statusCode: StatusCodes.Status409Conflict,
            type: "urn:ingest:problem:auto-index-limit",
            extensions: new Dictionary<string, object?>
            {
                ["message"] = error.Message,
                ["index"] = error.IndexName,
                ["collection"] = error.Collection,
            });

    public static IResult Failed(Exception error) =>
        TypedResults.Problem(
            title: "Query failed",
            detail: $"The query failed on the server ({error.GetType().Name}: {ApiProblems.Shorten(error.Message)}); the server log has the details.",
            statusCode: StatusCodes.Status500InternalServerError);
}
