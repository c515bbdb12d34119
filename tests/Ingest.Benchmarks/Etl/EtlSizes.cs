namespace Ingest.Benchmarks.Etl;

/// <summary>How many stored orders each ETL workload sends, and the untimed warm-up before each cell.</summary>
internal sealed record EtlSizes(string Name, int KafkaDocuments, int RabbitMqDocuments, int WarmUpDocuments)
{
    /// <summary>The sizes: 1M orders to Kafka, 200k to RabbitMQ.</summary>
    public static EtlSizes Full { get; } = new("full", 1_000_000, 200_000, 20_000);

    /// <summary>Small enough for CI: the whole run in well under 90 s on a shared 2-core VM.</summary>
    public static EtlSizes Quick { get; } = new("quick", 20_000, 5_000, 1_000);
}
