using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Where an ETL task publishes on Kafka (its settings; <see cref="KafkaEtlDestination"/> publishes): one topic;
/// the record key is the document id unless the transform gives one.
/// </summary>
public sealed class EtlKafkaSettings
{
    /// <summary>host:port[,host:port...]</summary>
    public string? BootstrapServers { get; set; }

    public string? Topic { get; set; }

    /// <summary>
    /// librdkafka producer settings passed through (TLS, SASL, batching...). The settings delivery
    /// guarantees rest on cannot be overridden, and the .NET binding's own (<c>dotnet.*</c>) do not apply.
    /// </summary>
    public Dictionary<string, string> Settings { get; set; } = [];

    /// <summary>Settings the task owns: the idempotent producer with acks=all is what makes progress safe to record.</summary>
    public static IReadOnlyList<string> ReservedSettings { get; } =
        ["bootstrap.servers", "acks", "enable.idempotence", "transactional.id", "max.in.flight.requests.per.connection"];

    internal void Validate(string path, List<string> errors)
    {
        KafkaClientSettings.Validate(BootstrapServers, Settings, ReservedSettings, path, "the ETL task manages it (idempotent producer, acks=all).", errors);
        foreach (var key in Settings.Keys)
        {
            // The producer hands settings to librdkafka itself (Brokers/NativeKafkaProducer), without the .NET binding that reads these.
            if (key.StartsWith("dotnet.", StringComparison.OrdinalIgnoreCase))
            {
                errors.Add($"{path}:Settings:{key} cannot be set: it is a Confluent.Kafka .NET setting, and the ETL producer takes librdkafka settings only.");
            }
        }

        EtlTaskDefinition.Require(Topic, $"{path}:Topic", errors);
        if (Topic is { Length: > 249 })
        {
            errors.Add($"{path}:Topic must be at most 249 characters.");
        }
    }
}
