namespace Ingest.Server.Hosting.Http;

/// <summary>RFC 7807 problem details for the API's errors: a title, a detail that names the parameter or problem, and the status.</summary>
internal static class ApiProblems
{
    public static IResult BadParameter(string parameter, string? value, string expectation) =>
        TypedResults.Problem(
            title: $"Invalid parameter '{parameter}'",
            detail: value is null
                ? $"The parameter '{parameter}' is required: {expectation}."
                : $"The parameter '{parameter}' is '{Shorten(value)}': {expectation}.",
            statusCode: StatusCodes.Status400BadRequest);

    /// <summary>A parameter or header given more than once: ASP.NET would join the values with commas.</summary>
    public static IResult Repeated(string kind, string name, Microsoft.Extensions.Primitives.StringValues values) =>
        TypedResults.Problem(
            title: $"Repeated {kind} '{name}'",
            detail: $"The {kind} '{name}' is given {values.Count} times ({Shorten(string.Join(", ", values.Select(v => $"'{v}'")))}); give it once.",
            statusCode: StatusCodes.Status400BadRequest);

    public static IResult BadRequest(string title, string detail) =>
        TypedResults.Problem(title: title, detail: detail, statusCode: StatusCodes.Status400BadRequest);

    public static IResult NotFound(string title, string detail) =>
        TypedResults.Problem(title: title, detail: detail, statusCode: StatusCodes.Status404NotFound);

    public static IResult TooLarge(long size, int limit) =>
        TypedResults.Problem(
            title: "Request body too large",
            detail: size < 0
                ? $"The request body is larger than allowed; the limit is {limit} bytes."
                : $"The request body is {size} bytes; the limit is {limit} bytes.",
            statusCode: StatusCodes.Status413PayloadTooLarge);

    public static IResult BodyTimeout(string reason) =>
        TypedResults.Problem(
            title: "Request body too slow",
            detail: $"The request body arrived slower than the server's minimum data rate and was abandoned ({reason}).",
            statusCode: StatusCodes.Status408RequestTimeout);

    public static IResult BadBody(int status, string reason) =>
        TypedResults.Problem(title: "Incomplete or malformed request body", detail: reason, statusCode: status);

    public static IResult UnsupportedMediaType(string? contentType) =>
        TypedResults.Problem(
            title: "Unsupported media type",
            detail: $"The request body is '{contentType}'; send application/json.",
            statusCode: StatusCodes.Status415UnsupportedMediaType);

    public static IResult Unprocessable(string title, string detail) =>
        TypedResults.Problem(title: title, detail: detail, statusCode: StatusCodes.Status422UnprocessableEntity);

    public static string Shorten(string value) => value.Length <= 200 ? value : string.Concat(value.AsSpan(0, 200), "...");
}
