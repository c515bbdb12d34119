namespace Ingest.Contracts.Http;

/// <summary>One consumer group of a node, with its committed position and lag per partition.</summary>
/// <param name="Group">The group id.</param>
/// <param name="Kind">"source" (a Kafka source's) or "cluster" (the cluster topic's applier's).</param>
/// <param name="Source">The source's name, for a source's group.</param>
/// <param name="Alive">Whether the group has active members.</param>
/// <param name="Members">The members' client ids.</param>
/// <param name="Partitions">Per partition: the committed offset (the next one to read), the high watermark and the lag between them.</param>
public sealed record ClusterGroupEntry(string Group, string Kind, string? Source, bool Alive, IReadOnlyList<string> Members, IReadOnlyList<PartitionStatsEntry> Partitions);
