using System.Globalization;

namespace Ingest.Server.Cluster;

/// <summary>
/// How a node names itself to Kafka, so that other nodes (and operators' lag tools) can tell group members
/// apart: every client it builds has <c>client.id</c> = <c>ingest-&lt;node&gt;</c> in cluster mode and
/// <c>ingest-&lt;machine&gt;-&lt;pid&gt;</c> in single-node mode, optionally followed by <c>/</c> and what the client
/// is for (<c>ingest-node-1/orders</c>); a Kafka source's group is <c>&lt;group&gt;.&lt;node&gt;</c> in cluster mode.
/// </summary>
internal static class NodeIdentity
{
    public const string ClientIdPrefix = "ingest-";

    /// <summary>This process's client id (without a suffix).</summary>
    public static string ClientId(ClusterOptions cluster)
    {
        ArgumentNullException.ThrowIfNull(cluster);
        return cluster.Enabled
            ? ClientIdPrefix + cluster.Node
            : string.Create(CultureInfo.InvariantCulture, $"{ClientIdPrefix}{Environment.MachineName}-{Environment.ProcessId}");
    }

    /// <summary>This process's client id for one of its clients: <c>ingest-node-1/orders</c>.</summary>
    public static string ClientId(ClusterOptions cluster, string purpose) => ClientId(cluster) + "/" + purpose;

    /// <summary>
    /// The static member id (<c>group.instance.id</c>) of a per-node group's consumer in cluster mode, null on one node.
    /// A restarted node takes its partitions back at once instead of waiting for its killed predecessor's session to
    /// expire (a new member's join waits for that), and a second process under the same node name is fenced, not silent.
    /// </summary>
    public static string? StaticMember(ClusterOptions cluster, string purpose)
    {
        ArgumentNullException.ThrowIfNull(cluster);
        return cluster.Enabled ? ClientId(cluster, purpose) : null;
    }

    /// <summary>The consumer group a Kafka source configured with <paramref name="groupId"/> joins: per node in cluster mode.</summary>
    public static string SourceGroup(string groupId, ClusterOptions cluster)
    {
        ArgumentNullException.ThrowIfNull(groupId);
        ArgumentNullException.ThrowIfNull(cluster);
        return cluster.Enabled ? groupId + "." + cluster.Node : groupId;
    }

    /// <summary>The node a client id names (<c>ingest-node-1/orders</c> -> <c>node-1</c>); null for a client that is not an Ingest node's.</summary>
    public static string? NodeOf(string? clientId)
    {
        if (clientId is null || !clientId.StartsWith(ClientIdPrefix, StringComparison.Ordinal) || clientId.Length == ClientIdPrefix.Length)
        {
            return null;
        }

        var slash = clientId.IndexOf('/', ClientIdPrefix.Length);
        var node = slash < 0 ? clientId[ClientIdPrefix.Length..] : clientId[ClientIdPrefix.Length..slash];
        return node.Length == 0 ? null : node;
    }
}
