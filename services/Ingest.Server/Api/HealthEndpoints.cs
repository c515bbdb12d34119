using Ingest.Server.Hosting;

namespace Ingest.Server.Api;

/// <summary>Liveness (the process answers) and readiness (what the service depends on is usable).</summary>
public static class HealthEndpoints
{
    public static IEndpointRouteBuilder MapHealthEndpoints(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGet("/alive", () => Results.Text("alive"));
        endpoints.MapGet("/health", (DataDirectory data) =>
        {
            // Readiness grows with the service: today it is the data directory; sources and
            // indexes join it as they are built.
            var writable = Directory.Exists(data.FullPath);
            var body = new HealthReport(writable ? "healthy" : "unhealthy", data.FullPath);
            return writable ? Results.Ok(body) : Results.Json(body, statusCode: StatusCodes.Status503ServiceUnavailable);
        });
        return endpoints;
    }

    public sealed record HealthReport(string Status, string DataDirectory);
}
