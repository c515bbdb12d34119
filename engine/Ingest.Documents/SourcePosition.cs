namespace Ingest.Documents;

/// <summary>Where a source resumes: for Kafka, topic (source), partition and the next offset to consume.</summary>
/// <param name="Source">The source name, e.g. "kafka:orders".</param>
/// <param name="Partition">The partition (0 for sources without partitions).</param>
/// <param name="NextOffset">The next offset to consume.</param>
public readonly record struct SourcePosition(string Source, int Partition, long NextOffset);
