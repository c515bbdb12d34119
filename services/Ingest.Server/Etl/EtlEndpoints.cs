using System.Globalization;
using System.Text.Json;
using Ingest.Server.Brokers;
using Ingest.Server.Cluster;
using Ingest.Server.Etl;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// <c>/etl</c>: define (<c>PUT</c>), inspect, delete and reset ETL tasks, list a task's transform
/// errors and retry them.
/// </summary>
public static class EtlEndpoints
{
    private const int MaxDefinitionBytes = 1024 * 1024;

    public static IEndpointRouteBuilder MapEtlEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/etl", List).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapGet("/etl/{name}", Get).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapPut("/etl/{name}", PutAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapDelete("/etl/{name}", DeleteAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapPost("/etl/{name}/reset", ResetAsync).RequireScope(ApiScopes.Admin);
        endpoints.MapGet("/etl/{name}/errors", GetErrors).RequireScope(ApiScopes.Read);
        endpoints.MapPost("/etl/{name}/errors/{id}/retry", RetryAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static IResult List(EtlService etl) =>
        TypedResults.Json(etl.Tasks.Select(View).ToList(), EtlJsonContext.Http.ListEtlTaskView);

    private static IResult Get(string name, EtlService etl) =>
        etl.Find(name) is { } task ? TypedResults.Json(View(task), EtlJsonContext.Http.EtlTaskView) : TaskNotFound(name);

    private static async Task<IResult> PutAsync(string name, HttpContext context, EtlService etl)
    {
        var (body, problem) = await RequestBody.ReadAsync(context, MaxDefinitionBytes).ConfigureAwait(false);
        if (body is null)
        {
            return problem!;
        }

        EtlTaskDefinition? definition;
        byte[]? json = null;
        using (body)
        {
            if (ClusterWrites.LogOf(context) is not null)
            {
                json = body.Span.ToArray();
            }

            try
            {
                definition = JsonSerializer.Deserialize(body.Span, EtlJsonContext.Default.EtlTaskDefinition);
            }
            catch (JsonException ex)
            {
                return ApiProblems.BadRequest("Invalid ETL task definition", $"The body is not a valid task definition: {ex.Message}");
            }
        }

        if (definition is null)
        {
            return ApiProblems.BadRequest("Invalid ETL task definition", "The body is null; send a JSON object with collections and a kafka or rabbitMq destination.");
        }

        if (definition.Name is not null && !string.Equals(definition.Name, name, StringComparison.Ordinal))
        {
            return ApiProblems.BadRequest("Invalid ETL task definition", $"The body names the task '{definition.Name}' but the URL names '{name}'; leave the name out of the body or make them equal.");
        }

        if (etl.Find(name) is { Definition.FromConfiguration: true })
        {
            return FromConfiguration(name);
        }

        definition.Name = name;
        var (errors, created) = json is null
            ? await etl.PutAsync(definition).ConfigureAwait(false)
            : await PutThroughLogAsync(context, definition, json).ConfigureAwait(false);
        if (errors.Count > 0)
        {
            return InvalidDefinition(errors);
        }

        var view = TypedResults.Json(View(etl.Find(name)!), EtlJsonContext.Http.EtlTaskView, statusCode: created ? StatusCodes.Status201Created : StatusCodes.Status200OK);
        return view;
    }

    /// <summary>
    /// Cluster mode: checked here as <see cref="EtlService.PutAsync"/> checks it (400 before anything is produced), then
    /// produced as an <c>etl-task</c> record that every node applies (<see cref="EtlTaskClusterHandler"/>); answered once
    /// this node has.
    /// </summary>
    private static async Task<(IReadOnlyList<string> Errors, bool Created)> PutThroughLogAsync(HttpContext context, EtlTaskDefinition definition, byte[] json)
    {
        var errors = new List<string>();
        definition.Validate("definition", errors);
        context.RequestServices.GetRequiredService<ConfiguredSecrets>().ValidateStored(definition.Kafka?.Settings, definition.RabbitMq?.Uri, "definition", errors);
        if (errors.Count > 0)
        {
            return (errors, false);
        }

        var record = new ClusterRecord(EtlTaskClusterHandler.RecordKind, definition.Name!, json, [new(EtlTaskClusterHandler.Operation, "put"u8.ToArray())]);
        var written = await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
        if (written.Failure is { } failure)
        {
            return ([failure], false);
        }

        var handler = context.RequestServices.GetRequiredService<EtlTaskClusterHandler>();
        return ([], handler.Created.TryTake(written.Position, out var created) && created);
    }

    private static async Task<IResult> DeleteAsync(string name, HttpContext context, EtlService etl)
    {
        if (ClusterWrites.LogOf(context) is not null)
        {
            switch (etl.Find(name))
            {
                case null:
                    return TaskNotFound(name);
                case { Definition.FromConfiguration: true }:
                    return FromConfiguration(name);
            }

            var record = new ClusterRecord(EtlTaskClusterHandler.RecordKind, name, ReadOnlyMemory<byte>.Empty, [new(EtlTaskClusterHandler.Operation, "delete"u8.ToArray())]);
            await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
            return TypedResults.NoContent();
        }

        return await etl.DeleteAsync(name).ConfigureAwait(false) switch
        {
            EtlAdminOutcome.Done => TypedResults.NoContent(),
            EtlAdminOutcome.FromConfiguration => FromConfiguration(name),
            _ => TaskNotFound(name),
        };
    }

    /// <summary><c>?etag=N</c> sends every change after N again; without it, everything from the start.</summary>
    private static async Task<IResult> ResetAsync(string name, HttpRequest request, EtlService etl)
    {
        if (!QueryParameters.TryGetSingle(request, "etag", out var text, out var problem))
        {
            return problem!;
        }

        long etag = 0;
        if (!string.IsNullOrEmpty(text) && !long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out etag))
        {
            return ApiProblems.BadParameter("etag", text, "expected a non-negative integer: changes after it are sent again");
        }

        return await etl.ResetAsync(name, etag).ConfigureAwait(false) == EtlAdminOutcome.Done
            ? TypedResults.Json(View(etl.Find(name)!), EtlJsonContext.Http.EtlTaskView)
            : TaskNotFound(name);
    }

    private static IResult GetErrors(string name, HttpRequest request, EtlService etl)
    {
        if (etl.Find(name) is not { } task)
        {
            return TaskNotFound(name);
        }

        if (!QueryParameters.TryGetStart(request, out var start, out var problem)
            || !QueryParameters.TryGetPageSize(request, out var pageSize, out problem))
        {
            return problem!;
        }

        var errors = task.Errors.List(start, pageSize + 1);
        var items = errors.Take(pageSize).ToList();
        long? next = errors.Count > pageSize ? items[^1].Id : null;
        return TypedResults.Json(new EtlErrorPage(items, next), EtlJsonContext.Http.EtlErrorPage);
    }

    private static async Task<IResult> RetryAsync(string name, string id, HttpContext context, EtlService etl)
    {
        if (etl.Find(name) is not { } task)
        {
            return TaskNotFound(name);
        }

        if (!long.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out var errorId) || task.Errors.Find(errorId) is not { } error)
        {
            return ApiProblems.NotFound("ETL error not found", $"The ETL task '{name}' has no error '{id}'.");
        }

        try
        {
            var outcome = await task.RetryAsync(error, context.RequestAborted).ConfigureAwait(false);
            return TypedResults.Json(outcome, EtlJsonContext.Http.EtlRetryResponse);
        }
        catch (ScriptException ex)
        {
            return ApiProblems.Unprocessable("Transform still fails", $"The transform failed again for document '{error.DocumentId}': {ex.Message}");
        }
        catch (EtlDeliveryException ex)
        {
            return TypedResults.Problem(title: "Destination unavailable", detail: ex.Message, statusCode: StatusCodes.Status503ServiceUnavailable);
        }
    }

    private static EtlTaskView View(EtlTaskRunner task) =>
        new(task.Definition.Name!, task.Definition.FromConfiguration ? "configuration" : "http", task.Definition.Redacted(), task.GetStatus());

    private static IResult InvalidDefinition(IReadOnlyList<string> errors) =>
        TypedResults.Problem(
            title: "Invalid ETL task definition",
            detail: string.Join(" ", errors),
            statusCode: StatusCodes.Status400BadRequest,
            extensions: new Dictionary<string, object?> { ["errors"] = errors });

    private static IResult TaskNotFound(string name) =>
        ApiProblems.NotFound("ETL task not found", $"There is no ETL task named '{name}'.");

    private static IResult FromConfiguration(string name) =>
        TypedResults.Problem(
            title: "ETL task defined in configuration",
            detail: $"The ETL task '{name}' is defined in configuration ({EtlOptions.SectionName}); change or remove it there.",
            statusCode: StatusCodes.Status409Conflict);
}
