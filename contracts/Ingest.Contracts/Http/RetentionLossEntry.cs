namespace Ingest.Contracts.Http;

/// <summary>A partition whose first records the topic's retention removed before this store read them.</summary>
/// <param name="Topic">The topic.</param>
/// <param name="Partition">The partition.</param>
/// <param name="FirstAvailableOffset">The partition's log start offset when the source began reading it.</param>
/// <param name="Lost">Records between where the store stood (0 when it had no position) and that offset.</param>
public sealed record RetentionLossEntry(string Topic, int Partition, long FirstAvailableOffset, long Lost);
