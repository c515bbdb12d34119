namespace Ingest.Server.Cluster;

/// <summary>The cluster topic as the rest of the server uses it (registered only in cluster mode).</summary>
internal interface IClusterLog
{
    /// <summary>Produces <paramref name="record"/> (idempotent producer, acks=all) and returns where it landed.</summary>
    Task<ClusterPosition> AppendAsync(ClusterRecord record, CancellationToken cancellationToken);

    /// <summary>Completes once this node has applied everything up to <paramref name="position"/> in its partition.</summary>
    /// <exception cref="TimeoutException">Not applied within <see cref="ClusterOptions.ApplyTimeout"/>.</exception>
    Task WaitAppliedAsync(ClusterPosition position, CancellationToken cancellationToken);
}
