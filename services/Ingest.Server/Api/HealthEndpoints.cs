using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Hosting;
using Ingest.Server.Sources;

namespace Ingest.Server.Api;

/// <summary>Liveness (the process answers) and readiness (the store is open and every source has its broker).</summary>
public static class HealthEndpoints
{
    public const string Healthy = "healthy";
    public const string Unhealthy = "unhealthy";

    public static IEndpointRouteBuilder MapHealthEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/alive", () => Results.Text("alive"));
        endpoints.MapGet("/health", GetHealth);
        return endpoints;
    }

    private static IResult GetHealth(DataDirectory data, DocumentStore store, IngestionService ingestion)
    {
        var storeOpen = IsOpen(store) && Directory.Exists(data.FullPath);
        var healthy = storeOpen;
        var sources = new SourceHealth[ingestion.Sources.Count];
        for (var i = 0; i < sources.Length; i++)
        {
            var status = ingestion.Sources[i].GetStatus();
            sources[i] = new SourceHealth(status.Name, status.Kind, status.Connected, status.Error);
            healthy &= status.Connected;
        }

        var report = new HealthResponse(healthy ? Healthy : Unhealthy, storeOpen ? "open" : "closed", data.FullPath, sources);
        return TypedResults.Json(
            report, IngestHttpJsonContext.Default.HealthResponse, statusCode: healthy ? StatusCodes.Status200OK : StatusCodes.Status503ServiceUnavailable);
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
