using Ingest.Contracts.Http;
using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Cluster;

/// <summary>
/// <c>GET /cluster</c>: in cluster mode the nodes this node knows of (through Kafka's consumer groups), each one's
/// committed positions and lag per partition, whether it is alive, and the owners of tasks; on one node, this node.
/// See <see cref="ClusterMap"/> and docs/cluster.md.
/// </summary>
public static class ClusterEndpoints
{
    public static IEndpointRouteBuilder MapClusterEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/cluster", GetClusterAsync).RequireScope(ApiScopes.Read);
        return endpoints;
    }

    private static async Task<IResult> GetClusterAsync(IServiceProvider services, CancellationToken cancellationToken)
    {
        var map = services.GetRequiredService<ClusterMap>();
        var answer = await map.GetAsync(cancellationToken).ConfigureAwait(false);
        return TypedResults.Json(answer, IngestHttpJsonContext.Default.ClusterResponse);
    }

    /// <summary>Registers what <c>GET /cluster</c> needs.</summary>
    public static IServiceCollection AddClusterMap(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddSingleton<ClusterMap>();
        return services;
    }
}
