using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Query;
using Ingest.Server.Etl;
using Ingest.Server.Hosting;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Indexes;
using Ingest.Server.Sources;

namespace Ingest.Server.Operations;

/// <summary>
/// Liveness (the process answers) and readiness (the store is open, its disk is not full, no damaged
/// page was found, every source has its broker and no Kafka source shares its consumer group unknowingly (the
/// others are named: each member would read only part of the topic; see docs/cluster.md, "No silent split"), no index is errored (an errored index stops only itself,
/// but its queries would answer from damaged storage, so readiness names it and its error), and every
/// ETL task reaches its broker and runs: a retrying task is treated like a disconnected source).
/// </summary>
public static class HealthEndpoints
{
    public const string Healthy = "healthy";
    public const string Unhealthy = "unhealthy";
    public const string StoreOpen = "open";
    public const string StoreClosed = "closed";
    public const string StoreDiskFull = "disk-full";
    public const string StoreDamaged = "damaged";

    public static IEndpointRouteBuilder MapHealthEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/alive", () => Results.Text("alive")).OpenToAnyone();
        endpoints.MapGet("/health", GetHealth).RequireScope(ApiScopes.Read);
        return endpoints;
    }

    private static IResult GetHealth(DataDirectory data, DocumentStore store, IngestionService ingestion, QueryEngine engine, EtlService etl)
    {
        var (storeState, storeError) = StoreState(store, data);
        var healthy = storeState == StoreOpen;
        var sources = new SourceHealth[ingestion.Sources.Count];
        for (var i = 0; i < sources.Length; i++)
        {
            var status = ingestion.Sources[i].GetStatus();
            sources[i] = ToHealth(status);
            healthy &= status.Connected && status.Group?.Split is null;
        }

        var statuses = storeState == StoreClosed ? [] : engine.Indexes.GetStatuses();
        var indexHealth = new IndexHealth[statuses.Count];
        for (var i = 0; i < indexHealth.Length; i++)
        {
            var status = statuses[i];
            indexHealth[i] = new IndexHealth(status.Definition.Name, IndexViews.StateName(status.State), status.Error);
            healthy &= status.State != IndexState.Errored;
        }

        var tasks = etl.Tasks;
        var etlHealth = new EtlTaskHealth[tasks.Count];
        for (var i = 0; i < etlHealth.Length; i++)
        {
            var status = tasks[i].GetStatus();
            etlHealth[i] = EtlViews.Health(tasks[i].Definition.Name!, status);
            healthy &= EtlViews.IsHealthy(status.State);
        }

        var report = new HealthResponse(healthy ? Healthy : Unhealthy, storeState, data.FullPath, sources, storeError, indexHealth, etlHealth);
        return TypedResults.Json(
            report, IngestHttpJsonContext.Default.HealthResponse, statusCode: healthy ? StatusCodes.Status200OK : StatusCodes.Status503ServiceUnavailable);
    }

    private static SourceHealth ToHealth(SourceStatus status)
    {
        if (status.Group is not { } group)
        {
            return new SourceHealth(status.Name, status.Kind, status.Connected, status.Error);
        }

        string? warning = null;
        if (group.RetentionLosses.Count > 0)
        {
            long lost = 0;
            foreach (var loss in group.RetentionLosses)
            {
                lost += loss.Lost;
            }

            warning = $"{lost} records were removed by the topics' retention before this store read them ("
                + string.Join(", ", group.RetentionLosses.Select(static l => $"{l.Topic}[{l.Partition}] starts at {l.FirstAvailableOffset}"))
                + "); the store cannot hold them.";
        }

        return new SourceHealth(status.Name, status.Kind, status.Connected, status.Error ?? group.Split)
        {
            Group = group.GroupId,
            OtherMembers = group.OtherMembers.Count == 0 ? null : StatsEndpoints.ToEntries(group.OtherMembers),
            Warning = warning,
        };
    }

    private static (string State, string? Error) StoreState(DocumentStore store, DataDirectory data)
    {
        if (!IsOpen(store) || !Directory.Exists(data.FullPath))
        {
            return (StoreClosed, null);
        }

        // Damage does not heal; a full disk does, by itself, once space is freed.
        if (store.Corruption is { } damaged)
        {
            return (StoreDamaged, damaged.Message);
        }

        return store.DiskFull is { } full ? (StoreDiskFull, full.Message) : (StoreOpen, null);
    }

    private static bool IsOpen(DocumentStore store)
    {
        try
        {
            // A snapshot read is what every endpoint does first; if it works, the store answers.
            using var reader = store.BeginRead();
            return true;
        }
        catch (ObjectDisposedException)
        {
            return false;
        }
    }
}
