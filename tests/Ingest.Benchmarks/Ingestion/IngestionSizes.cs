namespace Ingest.Benchmarks.Ingestion;

/// <summary>How many documents each ingestion workload pre-loads into its broker.</summary>
/// <param name="KafkaWarmUpDocuments">
/// The uncounted warm-up topic. A full run's 20,000 left the JIT's background compiler busy for
/// about 7% of the timed run's samples (tier-1 code still arriving), so it gets 100,000; so does a
/// quick run, whose 100,000 timed documents otherwise ran with the JIT's compiler taking ~17% of the samples.
/// </param>
internal sealed record IngestionSizes(string Name, int KafkaDocuments, int RabbitMqDocuments, int KafkaWarmUpDocuments)
{
    /// <summary>The sizes: 1M documents in the topic, 200k in the queue.</summary>
    public static IngestionSizes Full { get; } = new("full", 1_000_000, 200_000, 100_000);

    /// <summary>A tenth, a minute or two on a shared 2-core VM.</summary>
    public static IngestionSizes Quick { get; } = new("quick", 100_000, 20_000, 100_000);
}
