using Ingest.Server.Brokers;

namespace Ingest.Server.Cluster;

/// <summary>
/// Cluster mode, bound from <c>Ingest:Cluster</c>. Absent (no <see cref="Node"/>): one node, exactly as before.
/// Present: this process is one full replica of a cluster whose replicated log is Kafka; every write goes
/// through the cluster topic and every node applies it from there.
/// </summary>
public sealed class ClusterOptions
{
    public const string SectionName = "Ingest:Cluster";

    /// <summary>This node's name, unique in the cluster: it names the node's consumer groups (<c>&lt;group&gt;.&lt;node&gt;</c>) and its client ids.</summary>
    public string? Node { get; set; }

    /// <summary>host:port[,host:port...] of the Kafka cluster holding the cluster topic.</summary>
    public string? BootstrapServers { get; set; }

    /// <summary>librdkafka settings for the cluster's clients (TLS, SASL...), validated and redacted as the sources' are.</summary>
    public Dictionary<string, string> Settings { get; set; } = [];

    /// <summary>The cluster topic: HTTP writes, admin changes, forwarded RabbitMQ messages and ETL progress.</summary>
    public string Topic { get; set; } = "ingest-cluster";

    /// <summary>Partitions of the cluster topic when this node creates it (one document's writes always go to one partition).</summary>
    public int Partitions { get; set; } = 3;

    /// <summary>Replication factor of the cluster topic when this node creates it (3 on a real cluster; 1 for one broker).</summary>
    public short ReplicationFactor { get; set; } = 1;

    /// <summary>The one-partition topic whose consumer groups (<c>ingest-owner.&lt;task&gt;</c>) elect each task's owner.</summary>
    public string LeaseTopic { get; set; } = "ingest-cluster-leases";

    /// <summary>How long a dead node keeps a lease (the owner groups' session timeout); failover takes about this long.</summary>
    public TimeSpan SessionTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>How long a read with <c>?after=</c> (or a write's answer) waits for this node to apply a position before a 504.</summary>
    public TimeSpan ApplyTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Whether cluster mode is on.</summary>
    public bool Enabled => !string.IsNullOrWhiteSpace(Node);

    /// <summary>librdkafka settings the cluster's clients own because exactly-once and ordering depend on them.</summary>
    public static IReadOnlyList<string> ReservedSettings { get; } =
        ["enable.auto.commit", "enable.auto.offset.store", "bootstrap.servers", "group.id", "enable.idempotence", "acks", "client.id"];

    /// <summary>Every problem with these settings, each naming the setting; empty when valid (or when cluster mode is off).</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (!Enabled)
        {
            if (!string.IsNullOrWhiteSpace(BootstrapServers) || Settings.Count > 0)
            {
                errors.Add($"{SectionName}:Node is required when {SectionName} is set: name this node (for example \"node-1\").");
            }

            return errors;
        }

        if (!IsName(Node!) || Node!.Length > 64)
        {
            errors.Add($"{SectionName}:Node '{Node}' must be 1-64 characters of letters, digits, '-', '_' or '.'.");
        }

        KafkaClientSettings.Validate(BootstrapServers, Settings, ReservedSettings, SectionName, "the cluster's clients manage it.", errors);
        if (!IsName(Topic) || Topic.Length > 200)
        {
            errors.Add($"{SectionName}:Topic '{Topic}' is not a valid Kafka topic name (letters, digits, '-', '_', '.').");
        }

        if (!IsName(LeaseTopic) || LeaseTopic.Length > 200)
        {
            errors.Add($"{SectionName}:LeaseTopic '{LeaseTopic}' is not a valid Kafka topic name (letters, digits, '-', '_', '.').");
        }

        if (string.Equals(Topic, LeaseTopic, StringComparison.Ordinal))
        {
            errors.Add($"{SectionName}:LeaseTopic must differ from {SectionName}:Topic.");
        }

        if (Partitions is < 1 or > 10_000)
        {
            errors.Add($"{SectionName}:Partitions is {Partitions}; it must be between 1 and 10000.");
        }

        if (ReplicationFactor < 1)
        {
            errors.Add($"{SectionName}:ReplicationFactor is {ReplicationFactor}; it must be at least 1.");
        }

        if (SessionTimeout < TimeSpan.FromSeconds(1) || SessionTimeout > TimeSpan.FromMinutes(5))
        {
            errors.Add($"{SectionName}:SessionTimeout is {SessionTimeout}; it must be between 00:00:01 and 00:05:00.");
        }

        if (ApplyTimeout <= TimeSpan.Zero)
        {
            errors.Add($"{SectionName}:ApplyTimeout must be positive.");
        }

        return errors;
    }

    private static bool IsName(string value)
    {
        if (value.Length is 0 or > 249)
        {
            return false;
        }

        foreach (var c in value)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.'))
            {
                return false;
            }
        }

        return true;
    }
}
