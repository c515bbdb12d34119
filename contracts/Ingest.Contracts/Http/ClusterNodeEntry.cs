namespace Ingest.Contracts.Http;

/// <summary>A node of the cluster, as its consumer groups show it.</summary>
/// <param name="Node">Its name.</param>
/// <param name="Self">Whether it is the node that answered.</param>
/// <param name="Alive">Whether any of its groups has an active member.</param>
/// <param name="Groups">Its consumer groups: one per Kafka source (<c>&lt;GroupId&gt;.&lt;node&gt;</c>) and the cluster topic's applier's.</param>
public sealed record ClusterNodeEntry(string Node, bool Self, bool Alive, IReadOnlyList<ClusterGroupEntry> Groups);
