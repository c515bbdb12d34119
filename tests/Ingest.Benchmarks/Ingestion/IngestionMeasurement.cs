namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// One system consuming one pre-loaded topic or queue. Rates are over <see cref="Elapsed"/>, from
/// the first message received to the last one read (plain consumer) or durable (ingest), so the
/// consumer-group join or connection setup, reported as <see cref="Startup"/>, does not dilute them.
/// </summary>
internal sealed record IngestionMeasurement(long Documents, long Bytes, TimeSpan Startup, TimeSpan Elapsed)
{
    /// <summary>How long writing a batch durably took, median and 99th percentile (ingest only; power-of-two bucket bounds).</summary>
    public TimeSpan? CommitP50 { get; init; }

    public TimeSpan? CommitP99 { get; init; }

    /// <summary>Median batch size in documents (ingest only; power-of-two bucket bound).</summary>
    public long? BatchP50 { get; init; }

    /// <summary>Batches written (ingest only).</summary>
    public long? Batches { get; init; }

    /// <summary>Batches closed by the delay limit rather than by size (ingest only): the consumer did not keep the batcher full.</summary>
    public long? ClosedByDelay { get; init; }

    /// <summary>Times the source had to wait for the store (ingest only): the store was the bottleneck.</summary>
    public long? ProducerWaits { get; init; }

    /// <summary>
    /// CPU time this process spent from the start of the run to its end (all threads: consumer,
    /// librdkafka, writer, store), or null if not measured. Less sensitive to a busy machine than
    /// the rates, since time spent waiting for a core is not counted.
    /// </summary>
    public TimeSpan? ProcessCpu { get; init; }

    /// <summary>The same by thread name, busiest first (Linux only; empty elsewhere).</summary>
    public IReadOnlyList<(string Thread, TimeSpan Cpu)> ThreadCpu { get; init; } = [];

    /// <summary>
    /// Managed bytes the whole process allocated during the run (ingest only): the Kafka client's
    /// per-record objects, the source's and the store's. Garbage kept alive until its batch is
    /// durable is what gets promoted, so this and <see cref="Collections"/> go together.
    /// </summary>
    public long? AllocatedBytes { get; init; }

    /// <summary>Garbage collections of generations 0, 1 and 2 during the run (ingest only; a gen-2 collection counts in all three).</summary>
    public (int Gen0, int Gen1, int Gen2)? Collections { get; init; }

    /// <summary>Process CPU time per document, in microseconds.</summary>
    public double? CpuMicrosecondsPerDocument => ProcessCpu is { } cpu && Documents > 0 ? cpu.TotalMicroseconds / Documents : null;

    /// <summary>
    /// The store's transactions (journal syncs) for the run, ingest only: fewer than <see cref="Batches"/>
    /// when the store merged batches queued while it was syncing.
    /// </summary>
    public long? StoreCommits { get; init; }

    private double Seconds => Math.Max(Elapsed.TotalSeconds, 1e-9);

    public double DocumentsPerSecond => Documents / Seconds;

    public double MegabytesPerSecond => Bytes / Seconds / 1e6;
}
