using System.Text.Json;
using Ingest.Server.Cluster;

namespace Ingest.Server.Etl;

/// <summary>
/// Cluster mode: an ETL task's acknowledged progress per log partition (<see cref="EtlLogProgress"/>), recorded through the
/// cluster topic as <c>etl-progress</c> records so that every node holds it (<see cref="EtlClusterProgress"/>) and the
/// next owner resumes from it. The task's loop advances it and takes snapshots; the appends run off the loop, one at a time
/// (<see cref="EtlProgressRecorder"/> batches them with the store's progress writes, never one per document).
/// </summary>
internal sealed class EtlLogProgressWriter(string task, IClusterLog log, TimeSpan finalAppendTimeout)
{
    private EtlLogProgress _acknowledged = new();

    /// <summary>Starts from the progress recorded so far (as the task gains its lease).</summary>
    public void Reset(EtlLogProgress recorded) => _acknowledged = recorded.Copy();

    /// <summary>A batch's highest positions were acknowledged by the destination.</summary>
    public void Acknowledge(EtlLogProgress batchHighest) => _acknowledged.Merge(batchHighest.ToList());

    /// <summary>The acknowledged progress as a record body, taken on the loop's thread.</summary>
    public ReadOnlyMemory<byte> Snapshot() =>
        JsonSerializer.SerializeToUtf8Bytes(new EtlProgressRecord(task, _acknowledged.ToList()), EtlJsonContext.Default.EtlProgressRecord);

    /// <summary>Appends a snapshot to the cluster topic; returns once the brokers have it (acks=all).</summary>
    public Task AppendAsync(ReadOnlyMemory<byte> snapshot, CancellationToken cancellationToken) =>
        log.AppendAsync(new ClusterRecord(EtlProgressRecord.Kind, EtlProgressRecord.KeyOf(task), snapshot, []), cancellationToken);

    /// <summary>How long the append as the task stops may take: the lease waits for it, and a cut-off node must stop before its lease passes on.</summary>
    public TimeSpan FinalAppendTimeout => finalAppendTimeout;
}
