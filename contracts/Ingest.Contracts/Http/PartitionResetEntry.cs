namespace Ingest.Contracts.Http;

/// <summary>One partition moved by a source reset.</summary>
/// <param name="Topic">The topic.</param>
/// <param name="Partition">The partition.</param>
/// <param name="From">The next offset the store held before the reset; null when it held none.</param>
/// <param name="To">The next offset the source consumes now.</param>
public sealed record PartitionResetEntry(string Topic, int Partition, long? From, long To);
