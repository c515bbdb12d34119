namespace Ingest.Benchmarks.Ingestion;

/// <summary>How many documents each ingestion workload pre-loads into its broker.</summary>
internal sealed record IngestionSizes(string Name, int KafkaDocuments, int RabbitMqDocuments)
{
    /// <summary>The sizes: 1M documents in the topic, 200k in the queue.</summary>
    public static IngestionSizes Full { get; } = new("full", 1_000_000, 200_000);

    /// <summary>A tenth, a minute or two on a shared 2-core VM.</summary>
    public static IngestionSizes Quick { get; } = new("quick", 100_000, 20_000);
}
