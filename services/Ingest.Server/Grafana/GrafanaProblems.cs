using Ingest.Query.Syntax;

namespace Ingest.Server.Grafana;

/// <summary>
/// Errors of the data source endpoints: RFC 7807 problems that also carry <c>message</c>, the field the plugin shows on
/// the panel (it shows only a generic "Bad Request" for a body with just <c>title</c> and <c>detail</c>).
/// </summary>
internal static class GrafanaProblems
{
    public static IResult InvalidQuery(string message, QueryException error, string refId)
    {
        var extensions = new Dictionary<string, object?> { ["message"] = message, ["refId"] = refId };
        if (error.Position.Line > 0)
        {
            extensions["line"] = error.Position.Line;
            extensions["column"] = error.Position.Column;
            extensions["offset"] = error.Position.Offset;
        }

        return TypedResults.Problem(
            title: "Invalid query", detail: message, statusCode: StatusCodes.Status400BadRequest, type: Queries.QueryProblems.InvalidQueryType, extensions: extensions);
    }

    public static IResult BadRequest(string message) =>
        TypedResults.Problem(
            title: "Invalid data source request", detail: message, statusCode: StatusCodes.Status400BadRequest,
            extensions: new Dictionary<string, object?> { ["message"] = message });

    public static IResult Unavailable(string message) =>
        TypedResults.Problem(
            title: "Query cannot run now", detail: message, statusCode: StatusCodes.Status503ServiceUnavailable,
            extensions: new Dictionary<string, object?> { ["message"] = message });
}
