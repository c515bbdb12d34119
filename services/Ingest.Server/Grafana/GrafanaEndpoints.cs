using System.Text.Json;
using Ingest.Query.Syntax;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Grafana;

/// <summary>
/// The simPod JSON data source contract under <c>/grafana</c> (the data source URL is <c>http://host:8080/grafana</c>):
/// <c>GET /grafana</c> for "Save &amp; test" (the plugin asks for the URL itself, without a trailing slash),
/// <c>POST /grafana/{query,variable,metrics,metric-payload-options,tag-keys,tag-values}</c>, and the saved queries
/// <c>GET /grafana/queries</c>, <c>PUT/GET/DELETE /grafana/queries/{name}</c>. The API key applies as everywhere.
/// </summary>
public static class GrafanaEndpoints
{
    public const string BasePath = "/grafana";

    public static IServiceCollection AddGrafana(this IServiceCollection services)
    {
        services.AddSingleton<SavedQueryStore>();
        services.AddSingleton<GrafanaFieldCatalog>();
        services.AddSingleton<GrafanaTargetResolver>();
        services.AddSingleton<GrafanaDataSource>();
        services.AddHttpContextAccessor();
        return services;
    }

    public static IEndpointRouteBuilder MapGrafanaEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        // Grafana reads; only the saved queries, which change what dashboards show, need admin to change.
        var grafana = endpoints.MapGroup(BasePath).RequireScope(ApiScopes.Read);
        // One route answers both /grafana and /grafana/ (routing ignores a trailing slash; a second route would be ambiguous).
        grafana.MapGet("", Test);
        grafana.MapPost("/query", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, body => source.QueryAsync(body, context.RequestAborted)))
            .AddEndpointFilter(Cluster.AfterPositionFilter.Instance);
        grafana.MapPost("/variable", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, body => source.VariableAsync(body, context.RequestAborted)));
        grafana.MapPost("/metrics", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, _ => Task.FromResult(source.Metrics())));
        grafana.MapPost("/metric-payload-options", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, body => source.MetricPayloadOptionsAsync(body, context.RequestAborted)));
        grafana.MapPost("/tag-keys", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, _ => Task.FromResult(source.TagKeys())));
        grafana.MapPost("/tag-values", (HttpContext context, GrafanaDataSource source) => WithBodyAsync(context, body => source.TagValuesAsync(body, context.RequestAborted)));
        grafana.MapGet("/queries", (SavedQueryStore store) => TypedResults.Json(store.List().ToList(), GrafanaJsonContext.Default.ListSavedQuery))
            .AddEndpointFilter(Cluster.AfterPositionFilter.Instance);
        grafana.MapGet("/queries/{name}", GetSaved).AddEndpointFilter(Cluster.AfterPositionFilter.Instance);
        grafana.MapPut("/queries/{name}", PutSavedAsync).RequireScope(ApiScopes.Admin);
        grafana.MapDelete("/queries/{name}", DeleteSavedAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static IResult Test() => TypedResults.Text("Ingest: the Grafana JSON data source endpoints are here.");

    private static async Task<IResult> WithBodyAsync(HttpContext context, Func<JsonElement, Task<IResult>> answer)
    {
        var read = await RequestBody.ReadAsync(context, GrafanaRequestReader.MaxBodyBytes).ConfigureAwait(false);
        using var body = read.Body;
        if (body is null)
        {
            return read.Problem!;
        }

        // A GrafanaRequestException (a body Ingest cannot read) or GrafanaTargetException becomes a problem in ProblemExceptionHandler.
        using var document = GrafanaRequestReader.Parse(body.Span.ToArray());
        return await answer(document.RootElement).ConfigureAwait(false);
    }

    private static IResult GetSaved(string name, SavedQueryStore store) =>
        store.Get(name) is { } saved
            ? TypedResults.Json(saved, GrafanaJsonContext.Default.SavedQuery)
            : ApiProblems.NotFound("No such saved query", $"There is no saved query named '{ApiProblems.Shorten(name)}'; GET /grafana/queries lists them.");

    private static async Task<IResult> DeleteSavedAsync(string name, HttpContext context, SavedQueryStore store)
    {
        if (Cluster.ClusterWrites.LogOf(context) is not null && store.Get(name) is not null)
        {
            // Through the log: every node deletes it (SavedQueryClusterHandler); this one answers once it has.
            var record = new Cluster.ClusterRecord(SavedQueryClusterHandler.RecordKind, name, ReadOnlyMemory<byte>.Empty, [new(SavedQueryClusterHandler.Operation, "delete"u8.ToArray())]);
            await Cluster.ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
            return TypedResults.NoContent();
        }

        return Cluster.ClusterWrites.LogOf(context) is null && store.Delete(name)
            ? TypedResults.NoContent()
            : ApiProblems.NotFound("No such saved query", $"There is no saved query named '{ApiProblems.Shorten(name)}'.");
    }

    private static async Task<IResult> PutSavedAsync(string name, HttpContext context, SavedQueryStore store)
    {
        if (!SavedQueryStore.IsValidName(name))
        {
            return ApiProblems.BadRequest("Invalid saved query name", $"'{ApiProblems.Shorten(name)}' is not a valid name: use 1 to 100 letters, digits, '-', '_' or '.'.");
        }

        if (!JsonContentType.IsJson(context.Request.ContentType))
        {
            return ApiProblems.UnsupportedMediaType(context.Request.ContentType);
        }

        var read = await RequestBody.ReadAsync(context, GrafanaRequestReader.MaxBodyBytes).ConfigureAwait(false);
        using var body = read.Body;
        if (body is null)
        {
            return read.Problem!;
        }

        SavedQueryBody? request;
        try
        {
            request = JsonSerializer.Deserialize(body.Span, GrafanaJsonContext.Default.SavedQueryBody);
        }
        catch (JsonException ex)
        {
            return ApiProblems.BadRequest("Invalid saved query", $"The body is not a saved query ({ex.Message}); send {{\"query\": \"from Orders group by Status select count()\", \"parameters\": {{}}, \"description\": \"...\"}}.");
        }

        if (string.IsNullOrWhiteSpace(request?.Query))
        {
            return ApiProblems.BadRequest("Invalid saved query", "The body has no 'query'; send {\"query\": \"from Orders group by Status select count()\"}.");
        }

        QueryParser.Parse(request.Query); // a QueryException is the 400 of /queries (ProblemExceptionHandler)

        var query = new SavedQuery(name, request.Query, request.Parameters, request.Description);
        bool replaced;
        if (Cluster.ClusterWrites.LogOf(context) is not null)
        {
            // Through the log: every node stores it (SavedQueryClusterHandler); this one answers once it has.
            var json = JsonSerializer.SerializeToUtf8Bytes(query, GrafanaJsonContext.Default.SavedQuery);
            var record = new Cluster.ClusterRecord(SavedQueryClusterHandler.RecordKind, name, json, [new(SavedQueryClusterHandler.Operation, "put"u8.ToArray())]);
            var written = await Cluster.ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
            if (written.Failure is { } failure)
            {
                return ApiProblems.BadRequest("Invalid saved query", failure);
            }

            replaced = context.RequestServices.GetRequiredService<SavedQueryClusterHandler>().Replaced.TryTake(written.Position, out var wasThere) && wasThere;
        }
        else
        {
            replaced = store.Put(query);
        }

        var saved = store.Get(name)!;
        return replaced
            ? TypedResults.Json(saved, GrafanaJsonContext.Default.SavedQuery)
            : TypedResults.Json(saved, GrafanaJsonContext.Default.SavedQuery, statusCode: StatusCodes.Status201Created);
    }
}
