using Ingest.Query;
using Ingest.Query.Syntax;
using Ingest.Server.Hosting.Http;

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

    public static IResult Failed(Exception error) =>
        TypedResults.Problem(
            title: "Query failed",
            detail: $"The query failed on the server ({error.GetType().Name}: {ApiProblems.Shorten(error.Message)}); the server log has the details.",
            statusCode: StatusCodes.Status500InternalServerError);
}
