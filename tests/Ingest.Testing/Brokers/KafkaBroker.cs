namespace Ingest.Testing.Brokers;

/// <summary>A reachable Kafka broker and where it came from (for failure messages).</summary>
public sealed record KafkaBroker(string BootstrapServers, string Origin);
