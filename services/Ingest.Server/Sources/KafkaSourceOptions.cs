using Ingest.Server.Brokers;

namespace Ingest.Server.Sources;

/// <summary>A Kafka consumer group reading topics into the store (<c>Ingest:Sources:Kafka:N</c>).</summary>
public sealed class KafkaSourceOptions : SourceMappingOptions
{
    /// <summary>host:port[,host:port...]</summary>
    public string? BootstrapServers { get; set; }

    public List<string> Topics { get; set; } = [];

    /// <summary>The consumer group; its committed offsets are what lag tools show.</summary>
    public string GroupId { get; set; } = "ingest";

    /// <summary>
    /// librdkafka settings passed through as they are (TLS, SASL, fetch sizes...), e.g.
    /// <c>"security.protocol": "SASL_SSL"</c>. Settings the source relies on (auto-commit,
    /// offset store) cannot be overridden.
    /// </summary>
    public Dictionary<string, string> Settings { get; set; } = [];

    protected override string Kind => "kafka";

    /// <summary>librdkafka settings the source owns because exactly-once depends on them.</summary>
    public static IReadOnlyList<string> ReservedSettings { get; } =
        ["enable.auto.commit", "enable.auto.offset.store", "bootstrap.servers", "group.id"];

    internal override void Validate(string path, List<string> errors)
    {
        base.Validate(path, errors);
        KafkaClientSettings.Validate(
            BootstrapServers, Settings, ReservedSettings, path, $"the source manages it (use {nameof(BootstrapServers)}/{nameof(GroupId)} for the first two).", errors);
        RequireNames(Topics, path, nameof(Topics), errors);
        Require(GroupId, path, nameof(GroupId), errors);
    }
}
