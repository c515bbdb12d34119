namespace Ingest.Contracts.Http;

/// <summary>
/// <c>GET /cluster</c>: the nodes this node knows of, found through Kafka's consumer groups, with each one's
/// committed positions and lag, and the owners of tasks. On one node (no <c>Ingest:Cluster</c>) it describes this node.
/// </summary>
/// <param name="Mode">"cluster" or "single".</param>
/// <param name="Node">This node's name; null on one node.</param>
/// <param name="ClientId">This node's Kafka client id (<c>ingest-&lt;node&gt;</c>, or <c>ingest-&lt;machine&gt;-&lt;pid&gt;</c> on one node).</param>
/// <param name="Nodes">Every node found, this one first.</param>
/// <param name="Owners">Each task's owner (the member of <c>ingest-owner.&lt;task&gt;</c> assigned the lease partition); empty on one node.</param>
public sealed record ClusterResponse(string Mode, string? Node, string ClientId, IReadOnlyList<ClusterNodeEntry> Nodes, IReadOnlyList<ClusterOwnerEntry> Owners)
{
    /// <summary>When Kafka was asked (answers are cached for a few seconds).</summary>
    public DateTimeOffset CheckedAt { get; init; }

    /// <summary>Why some of the answer is missing (a broker that did not answer); null when complete.</summary>
    public string? Error { get; init; }
}
