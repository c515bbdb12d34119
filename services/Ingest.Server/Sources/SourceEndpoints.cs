using Ingest.Contracts.Http;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Sources;

namespace Ingest.Server.Sources;

/// <summary><c>POST /sources/{name}/reset</c>: moves a Kafka source's stored positions (reprocessing, or skipping ahead).</summary>
public static class SourceEndpoints
{
    // {"to": {...}} for a few hundred partitions fits easily.
    private const int MaxBodyBytes = 256 * 1024;

    public static IEndpointRouteBuilder MapSourceEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapPost("/sources/{name}/reset", ResetAsync).RequireScope(ApiScopes.Admin);
        return endpoints;
    }

    private static async Task<IResult> ResetAsync(string name, HttpContext context, IngestionService ingestion)
    {
        var source = ingestion.Find(name);
        if (source is null)
        {
            var names = ingestion.Sources.Count == 0 ? "none is configured" : "configured: " + string.Join(", ", ingestion.Sources.Select(s => $"'{s.Name}'"));
            return ApiProblems.NotFound("Source not found", $"There is no source '{ApiProblems.Shorten(name)}' ({names}).");
        }

        var read = await RequestBody.ReadJsonAsync(context, MaxBodyBytes).ConfigureAwait(false);
        using var body = read.Body;
        if (body is null)
        {
            return read.Problem!;
        }

        if (!SourceResetTarget.TryParse(body.Span, out var target, out var error))
        {
            return ApiProblems.BadRequest("Invalid reset target", error!);
        }

        IReadOnlyList<PartitionReset> moved;
        try
        {
            moved = ClusterWrites.LogOf(context) is null
                ? await source.ResetAsync(target!, context.RequestAborted).ConfigureAwait(false)
                : await ResetThroughLogAsync(context, source, target!).ConfigureAwait(false);
        }
        catch (SourceResetException ex)
        {
            return ex.Problem switch
            {
                SourceResetProblem.InvalidTarget => ApiProblems.BadRequest("Invalid reset target", ex.Message),
                SourceResetProblem.NotSupported => TypedResults.Problem(title: "Source cannot be reset", detail: ex.Message, statusCode: StatusCodes.Status409Conflict),
                SourceResetProblem.InProgress => TypedResults.Problem(title: "Reset already waiting", detail: ex.Message, statusCode: StatusCodes.Status409Conflict),
                _ => TypedResults.Problem(title: "Reset failed", detail: ex.Message, statusCode: StatusCodes.Status503ServiceUnavailable),
            };
        }

        var partitions = new PartitionResetEntry[moved.Count];
        for (var i = 0; i < partitions.Length; i++)
        {
            partitions[i] = new PartitionResetEntry(moved[i].Topic, moved[i].Partition, moved[i].From, moved[i].To);
        }

        return TypedResults.Json(new SourceResetResponse(source.Name, target!.ToString(), partitions), IngestHttpJsonContext.Default.SourceResetResponse);
    }

    /// <summary>
    /// Cluster mode: the target is resolved to offsets here (a refusal is answered before anything is produced), then
    /// produced as a <c>source-reset</c> record that every node applies to its own positions
    /// (<see cref="SourceResetClusterHandler"/>); this node's outcome is the answer.
    /// </summary>
    private static async Task<IReadOnlyList<PartitionReset>> ResetThroughLogAsync(HttpContext context, IngestSource source, SourceResetTarget target)
    {
        var resolved = await source.ResolveAsync(target, context.RequestAborted).ConfigureAwait(false);
        var record = new ClusterRecord(SourceResetClusterHandler.RecordKind, source.Name, SourceResetClusterHandler.Encode(resolved), []);
        var written = await ClusterWrites.AppendAndApplyAsync(context, record).ConfigureAwait(false);
        var handler = context.RequestServices.GetRequiredService<SourceResetClusterHandler>();
        if (handler.Outcomes.TryTake(written.Position, out var outcome))
        {
            return outcome.Failure is { } failure ? throw failure : outcome.Moved!;
        }

        throw new SourceResetException(
            SourceResetProblem.Unavailable,
            $"Source '{source.Name}': the reset is in the cluster's log at {written.Position}, but this node did not apply it ({written.Failure ?? "no outcome was kept"}).");
    }
}
