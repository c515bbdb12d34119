namespace Ingest.Benchmarks.Etl;

/// <summary>How many stored orders each ETL workload sends, and the untimed warm-up before each broker's cells.</summary>
/// <param name="KafkaWarmUpDocuments">
/// Enough for the per-batch code (a batch is ~1,900 orders) to run often enough for the JIT to finish
/// tiering it before the timed run: with 20,000 the JIT's thread still took 9% of the process's CPU in
/// the timed etl-kafka run, 4% with 100,000.
/// </param>
internal sealed record EtlSizes(string Name, int KafkaDocuments, int RabbitMqDocuments, int KafkaWarmUpDocuments, int RabbitMqWarmUpDocuments)
{
    /// <summary>The sizes: 1M orders to Kafka, 200k to RabbitMQ.</summary>
    public static EtlSizes Full { get; } = new("full", 1_000_000, 200_000, 100_000, 20_000);

    /// <summary>Small enough for CI: the whole run in well under 90 s on a shared 2-core VM.</summary>
    public static EtlSizes Quick { get; } = new("quick", 20_000, 5_000, 1_000, 1_000);
}
