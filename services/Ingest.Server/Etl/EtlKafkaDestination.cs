using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>An ETL task's Kafka destination: one topic; the record key is the document id unless the transform gives one.</summary>
public sealed class EtlKafkaDestination
{
    /// <summary>host:port[,host:port...]</summary>
    public string? BootstrapServers { get; set; }

    public string? Topic { get; set; }

    /// <summary>
    /// librdkafka producer settings passed through (TLS, SASL, batching...). The settings delivery
    /// guarantees rest on cannot be overridden.
    /// </summary>
    public Dictionary<string, string> Settings { get; set; } = [];

    /// <summary>Settings the task owns: the idempotent producer with acks=all is what makes progress safe to record.</summary>
    public static IReadOnlyList<string> ReservedSettings { get; } =
        ["bootstrap.servers", "acks", "enable.idempotence", "transactional.id", "max.in.flight.requests.per.connection"];

    internal void Validate(string path, List<string> errors)
    {
        KafkaClientSettings.Validate(BootstrapServers, Settings, ReservedSettings, path, "the ETL task manages it (idempotent producer, acks=all).", errors);
        EtlTaskDefinition.Require(Topic, $"{path}:Topic", errors);
        if (Topic is { Length: > 249 })
        {
            errors.Add($"{path}:Topic must be at most 249 characters.");
        }
    }
}
