using System.Globalization;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Expiration;

/// <summary>
/// <c>/expiration</c>: the retention rules and the task's progress (<c>GET</c>), and a collection's rule set
/// (<c>PUT</c>) or removed (<c>DELETE</c>) over HTTP, which overrides configuration and persists.
/// </summary>
public static class ExpirationEndpoints
{
    private const int MaxBodyBytes = 64 * 1024;

    public static IEndpointRouteBuilder MapExpirationEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/expiration", Get).RequireScope(ApiScopes.Read);
        endpoints.MapPut("/expiration/collections/{name}", PutAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapDelete("/expiration/collections/{name}", DeleteAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static IResult Get(DocumentStore store, IServiceProvider services)
    {
        var rules = services.GetRequiredService<RetentionRules>();
        var progress = services.GetRequiredService<ExpirationProgress>();
        var options = services.GetRequiredService<IOptions<ExpirationOptions>>().Value;
        var task = ExpirationViews.Stats(store, rules, progress);
        var view = new ExpirationView(
            RetentionRules.Format(options.Interval),
            options.BatchSize,
            options.DeadLetters.Keep is { } keep ? RetentionRules.Format(keep) : null,
            [.. task.Collections.Where(static c => c.Keep is not null)],
            task);
        return TypedResults.Json(view, ExpirationJsonContext.Default.ExpirationView);
    }

    private static async Task<IResult> PutAsync(string name, HttpContext context, IServiceProvider services)
    {
        var (body, problem) = await RequestBody.ReadAsync(context, MaxBodyBytes).ConfigureAwait(false);
        if (body is null)
        {
            return problem!;
        }

        TimeSpan? keep = null;
        string? field = null;
        using (body)
        {
            try
            {
                using var json = JsonDocument.Parse(body.Span.ToArray());
                if (json.RootElement.ValueKind != JsonValueKind.Object)
                {
                    return Invalid(name, $"the body is a JSON {json.RootElement.ValueKind}; send an object such as {{\"keep\":\"30.00:00:00\",\"field\":\"OrderedAt\"}}.");
                }

                foreach (var property in json.RootElement.EnumerateObject())
                {
                    switch (property.Name)
                    {
                        case "keep" when property.Value.ValueKind == JsonValueKind.String:
                            if (!TimeSpan.TryParse(property.Value.GetString(), CultureInfo.InvariantCulture, out var parsed))
                            {
                                return Invalid(name, $"keep \"{property.Value.GetString()}\" is not a TimeSpan; write days.hours:minutes:seconds, e.g. \"30.00:00:00\".");
                            }

                            keep = parsed;
                            break;
                        case "field" when property.Value.ValueKind is JsonValueKind.String or JsonValueKind.Null:
                            field = property.Value.GetString();
                            break;
                        case "keep" or "field":
                            return Invalid(name, $"{property.Name} is a JSON {property.Value.ValueKind}; it must be a string.");
                        default:
                            return Invalid(name, $"unknown property '{property.Name}'; a rule has keep and, optionally, field.");
                    }
                }
            }
            catch (JsonException ex)
            {
                return Invalid(name, $"the body is not valid JSON: {ex.Message}");
            }
        }

        if (RetentionRuleCheck.Check(name, keep, field) is { } error)
        {
            return Invalid(name, error);
        }

        try
        {
            await services.GetRequiredService<RetentionRules>().SetAsync(name, new RetentionOverride(name, keep!.Value, field)).ConfigureAwait(false);
        }
        catch (ArgumentException ex)
        {
            return Invalid(name, ex.Message);
        }

        return Get(services.GetRequiredService<DocumentStore>(), services);
    }

    private static async Task<IResult> DeleteAsync(string name, IServiceProvider services)
    {
        if (!await services.GetRequiredService<RetentionRules>().SetAsync(name, null).ConfigureAwait(false))
        {
            return ApiProblems.NotFound("No retention rule", $"The collection '{name}' has no retention rule, from configuration or over HTTP.");
        }

        return TypedResults.NoContent();
    }

    private static IResult Invalid(string name, string detail) =>
        ApiProblems.BadRequest("Invalid retention rule", $"Collection '{name}': {detail}");
}
