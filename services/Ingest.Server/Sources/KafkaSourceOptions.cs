using Ingest.Server.Brokers;

namespace Ingest.Server.Sources;

/// <summary>A Kafka consumer group reading topics into the store (<c>Ingest:Sources:Kafka:N</c>).</summary>
public sealed class KafkaSourceOptions : SourceMappingOptions
{
    /// <summary>host:port[,host:port...]</summary>
    public string? BootstrapServers { get; set; }

    public List<string> Topics { get; set; } = [];

    /// <summary>
    /// The consumer group; its committed offsets are what lag tools show. In cluster mode the source joins
    /// <c>&lt;GroupId&gt;.&lt;node&gt;</c>, so every node reads every partition.
    /// </summary>
    public string GroupId { get; set; } = "ingest";

    /// <summary>
    /// Whether the group may have members other than this source (another Ingest, or any other consumer), each
    /// reading only its share of the partitions. False (the default): such members make <c>/health</c> 503, naming
    /// them, since this store then holds only part of the topic.
    /// </summary>
    public bool SharedGroup { get; set; }

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
