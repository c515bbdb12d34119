namespace Ingest.Testing.Brokers;

/// <summary>A reachable RabbitMQ broker and where it came from (for failure messages).</summary>
public sealed record RabbitMqBroker(Uri Uri, string Origin);
