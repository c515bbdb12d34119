namespace Ingest.Server.Cluster;

/// <summary>
/// Applies the cluster records of one kind on this node (registered as a service; the applier finds
/// handlers by <see cref="Kind"/>). Applying must be idempotent: after a crash a record may be
/// applied again before its position is stored.
/// </summary>
internal interface IClusterRecordHandler
{
    string Kind { get; }

    Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken);
}
