namespace Ingest.Benchmarks.Etl;

/// <summary>Where one workload's messages go: a fresh Kafka topic, or a fresh RabbitMQ exchange bound to a fresh queue.</summary>
/// <param name="Kafka">The bootstrap servers, for a Kafka target.</param>
/// <param name="RabbitMq">The broker URI, for a RabbitMQ target.</param>
/// <param name="Name">The topic, or the exchange and queue (they share the name).</param>
internal sealed record EtlTarget(string? Kafka, Uri? RabbitMq, string Name)
{
    public const int KafkaPartitions = 3;
    public const string RoutingKey = "orders";
}
