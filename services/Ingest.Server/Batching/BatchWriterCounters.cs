using Ingest.Server.Sources;

namespace Ingest.Server.Batching;

/// <summary>
/// A <see cref="BatchWriter"/>'s figures: items added and done, what was written, dropped and
/// dead-lettered, the last store failure; and where a commit is recorded (the batching statistics
/// and the metrics). Written by the writer's loop (and by producers for <see cref="Added"/>), read by anyone.
/// </summary>
internal sealed class BatchWriterCounters(string source, BatchStatistics statistics)
{
    private long _added;
    private long _done;
    private long _written;
    private long _dropped;
    private long _deadLetters;
    private string? _lastError;

    public long Added => Volatile.Read(ref _added);

    public long Done => Volatile.Read(ref _done);

    public long Written => Volatile.Read(ref _written);

    public long Dropped => Volatile.Read(ref _dropped);

    public long DeadLetters => Volatile.Read(ref _deadLetters);

    public string? LastError => Volatile.Read(ref _lastError);

    public void AddAdded() => Interlocked.Increment(ref _added);

    public void AddDone(int count) => Interlocked.Add(ref _done, count);

    public void AddDropped(long count) => Interlocked.Add(ref _dropped, count);

    public void RecordFailure(string error) => Volatile.Write(ref _lastError, error);

    /// <summary>A batch's write is durable: its figures count, and writes are no longer failing.</summary>
    public void Committed(Batch<IngestItem> batch, TimeSpan commitLatency, WriteCounts counts)
    {
        statistics.RecordCommit(commitLatency);
        Telemetry.IngestMetrics.BatchCommitted(source, batch, commitLatency);
        Interlocked.Add(ref _written, counts.Written);
        Interlocked.Add(ref _deadLetters, counts.DeadLetters);
        Interlocked.Add(ref _dropped, counts.Dropped);
        Volatile.Write(ref _lastError, null);
    }
}
