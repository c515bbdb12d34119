using Ingest.Indexing.Definitions;
using Ingest.Server.Hosting.Http;

namespace Ingest.Server.Indexes;

/// <summary>RFC 7807 problems of the <c>/indexes</c> endpoints.</summary>
internal static class IndexProblems
{
    public const string InvalidDefinitionType = "urn:ingest:problem:invalid-index-definition";

    /// <summary>400 listing every problem, in <c>detail</c> and as <c>errors</c> (<c>field</c> where in the body, <c>message</c> what is wrong).</summary>
    public static IResult InvalidDefinition(string name, IReadOnlyList<IndexDefinitionError> errors) =>
        TypedResults.Problem(
            title: "Invalid index definition",
            detail: $"The definition of index '{ApiProblems.Shorten(name)}' has {Count(errors.Count)}; nothing was stored: "
                + string.Join("; ", errors.Select(e => $"{e.Field}: {e.Message}")) + ".",
            statusCode: StatusCodes.Status400BadRequest,
            type: InvalidDefinitionType,
            extensions: new Dictionary<string, object?> { ["errors"] = errors });

    public static IResult NotFound(string name) =>
        ApiProblems.NotFound("Index not found", $"There is no index named '{ApiProblems.Shorten(name)}'.");

    private static string Count(int problems) => problems == 1 ? "1 problem" : $"{problems} problems";
}
