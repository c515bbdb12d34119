using System.Text.Json;
using Ingest.Server.Hosting.Http;

namespace Ingest.Server.Queries;

/// <summary>
/// Reads a <see cref="QueryRequest"/> from <c>GET /queries?q=...&amp;p.name=value&amp;waitForNonStale=5s&amp;continuation=...&amp;timeout=2s</c>
/// (a <c>p.</c> value is JSON when it parses as JSON, else a string: <c>p.min=10</c> is a number, <c>p.status=shipped</c> a
/// string, <c>p.status="10"</c> the string 10) or from the JSON body of <c>POST /queries</c>
/// (<c>{"query", "parameters", "waitForNonStale", "continuation", "timeout"}</c>, or <c>?timeout=</c>); what is wrong becomes a problem naming it.
/// </summary>
internal static class QueryRequestReader
{
    public const string ParameterPrefix = "p.";

    /// <summary>Bodies hold a query (at most 64 KiB) and its parameters.</summary>
    public const int MaxBodyBytes = 1024 * 1024;

    private static readonly string[] BodyProperties = ["query", "parameters", "waitForNonStale", "continuation", "timeout"];

    /// <summary>The <c>timeout</c> query-string parameter of any query request (GET, POST, explain).</summary>
    public static bool TryReadTimeout(HttpRequest request, out TimeSpan? timeout, out IResult? problem)
    {
        timeout = null;
        if (!QueryParameters.TryGetSingle(request, "timeout", out var text, out problem))
        {
            return false;
        }

        if (!WaitDuration.TryParseTimeout(text, out timeout))
        {
            problem = ApiProblems.BadParameter("timeout", text, WaitDuration.ExpectedTimeout);
            return false;
        }

        return true;
    }

    public static bool TryReadQueryString(HttpRequest request, out QueryRequest? query, out IResult? problem)
    {
        query = null;
        if (!QueryParameters.TryGetSingle(request, "q", out var text, out problem)
            || !QueryParameters.TryGetSingle(request, "waitForNonStale", out var waitText, out problem)
            || !QueryParameters.TryGetSingle(request, "continuation", out var continuation, out problem)
            || !TryReadTimeout(request, out var timeout, out problem))
        {
            return false;
        }

        if (string.IsNullOrWhiteSpace(text))
        {
            problem = ApiProblems.BadParameter("q", text, "put the query in it, e.g. ?q=from Orders where Total > 10");
            return false;
        }

        if (!WaitDuration.TryParse(waitText, out var wait))
        {
            problem = ApiProblems.BadParameter("waitForNonStale", waitText, WaitDuration.Expected);
            return false;
        }

        var parameters = new Dictionary<string, JsonElement>(StringComparer.Ordinal);
        foreach (var (key, values) in request.Query)
        {
            if (!key.StartsWith(ParameterPrefix, StringComparison.Ordinal))
            {
                continue;
            }

            if (!QueryParameters.TryGetSingle(values, key, "parameter", out var value, out problem))
            {
                return false;
            }

            var name = key[ParameterPrefix.Length..];
            if (name.Length == 0)
            {
                problem = ApiProblems.BadParameter(key, value, "name the query parameter after 'p.', e.g. p.min=10 for $min");
                return false;
            }

            parameters[name] = ParameterValue(value ?? string.Empty);
        }

        query = new QueryRequest(text, parameters, wait, string.IsNullOrEmpty(continuation) ? null : continuation, timeout);
        return true;
    }

    public static bool TryReadBody(ReadOnlySpan<byte> body, out QueryRequest? query, out IResult? problem)
    {
        query = null;
        problem = null;
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(body.ToArray(), new JsonDocumentOptions { MaxDepth = 64 });
        }
        catch (JsonException ex)
        {
            problem = BadBody($"The body is not valid JSON: {ex.Message}");
            return false;
        }

        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                problem = BadBody("The body must be a JSON object like {\"query\": \"from Orders\", \"parameters\": {}, \"waitForNonStale\": \"5s\"}.");
                return false;
            }

            string? text = null;
            string? continuation = null;
            TimeSpan? wait = null;
            TimeSpan? timeout = null;
            var parameters = new Dictionary<string, JsonElement>(StringComparer.Ordinal);
            foreach (var property in root.EnumerateObject())
            {
                var value = property.Value;
                switch (property.Name)
                {
                    case "query" when value.ValueKind == JsonValueKind.String:
                        text = value.GetString();
                        break;
                    case "query":
                        problem = BadBody($"'query' is {Describe(value)}; expected the query text as a string.");
                        return false;
                    case "parameters" when value.ValueKind == JsonValueKind.Object:
                        foreach (var parameter in value.EnumerateObject())
                        {
                            parameters[parameter.Name] = parameter.Value.Clone();
                        }

                        break;
                    case "parameters" when value.ValueKind == JsonValueKind.Null:
                        break;
                    case "parameters":
                        problem = BadBody($"'parameters' is {Describe(value)}; expected an object of JSON values by name, e.g. {{\"min\": 10}} for $min.");
                        return false;
                    case "waitForNonStale" when value.ValueKind is JsonValueKind.String or JsonValueKind.True or JsonValueKind.False or JsonValueKind.Null:
                        var waitText = value.ValueKind == JsonValueKind.String ? value.GetString() : value.ValueKind == JsonValueKind.True ? "true" : null;
                        if (!WaitDuration.TryParse(waitText, out wait))
                        {
                            problem = BadBody($"'waitForNonStale' is '{ApiProblems.Shorten(waitText ?? string.Empty)}': {WaitDuration.Expected}.");
                            return false;
                        }

                        break;
                    case "waitForNonStale":
                        problem = BadBody($"'waitForNonStale' is {Describe(value)}: {WaitDuration.Expected}.");
                        return false;
                    case "timeout" when value.ValueKind is JsonValueKind.String or JsonValueKind.Null:
                        var timeoutText = value.ValueKind == JsonValueKind.String ? value.GetString() : null;
                        if (!WaitDuration.TryParseTimeout(timeoutText, out timeout))
                        {
                            problem = BadBody($"'timeout' is '{ApiProblems.Shorten(timeoutText ?? string.Empty)}': {WaitDuration.ExpectedTimeout}.");
                            return false;
                        }

                        break;
                    case "timeout":
                        problem = BadBody($"'timeout' is {Describe(value)}: {WaitDuration.ExpectedTimeout}.");
                        return false;
                    case "continuation" when value.ValueKind is JsonValueKind.String or JsonValueKind.Null:
                        continuation = value.ValueKind == JsonValueKind.String ? value.GetString() : null;
                        break;
                    case "continuation":
                        problem = BadBody($"'continuation' is {Describe(value)}; expected the token of the previous page's response, a string.");
                        return false;
                    default:
                        problem = BadBody($"Unknown property '{ApiProblems.Shorten(property.Name)}'; expected {string.Join(", ", BodyProperties)}.");
                        return false;
                }
            }

            if (string.IsNullOrWhiteSpace(text))
            {
                problem = BadBody("The body has no 'query'; send {\"query\": \"from Orders where Total > $min\", \"parameters\": {\"min\": 10}}.");
                return false;
            }

            query = new QueryRequest(text, parameters, wait, string.IsNullOrEmpty(continuation) ? null : continuation, timeout);
            return true;
        }
    }

    /// <summary>A <c>p.</c> value: its JSON when it is a JSON value, otherwise the text itself as a string.</summary>
    internal static JsonElement ParameterValue(string text)
    {
        try
        {
            using var document = JsonDocument.Parse(text);
            return document.RootElement.Clone();
        }
        catch (JsonException)
        {
            return JsonSerializer.SerializeToElement(text, QueryJsonContext.Default.String);
        }
    }

    private static IResult BadBody(string detail) => ApiProblems.BadRequest("Invalid query request", detail);

    private static string Describe(JsonElement value) => value.ValueKind switch
    {
        JsonValueKind.Object => "an object",
        JsonValueKind.Array => "an array",
        JsonValueKind.String => "a string",
        JsonValueKind.Number => $"the number {value.GetRawText()}",
        JsonValueKind.True or JsonValueKind.False => value.GetRawText(),
        _ => "null",
    };
}
