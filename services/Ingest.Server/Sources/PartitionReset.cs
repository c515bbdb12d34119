namespace Ingest.Server.Sources;

/// <summary>One partition moved by a source reset: the next offset the store held before (null when none) and the one it holds now.</summary>
public readonly record struct PartitionReset(string Topic, int Partition, long? From, long To);
