namespace Ingest.Server.Sources;

/// <summary>
/// A partition whose first records were gone from the broker (removed by the topic's retention) before this
/// store read them: the store can be rebuilt from <paramref name="FirstAvailableOffset"/> on only.
/// </summary>
/// <param name="Topic">The topic.</param>
/// <param name="Partition">The partition.</param>
/// <param name="FirstAvailableOffset">The partition's log start offset when the source began reading it.</param>
/// <param name="Lost">Records between where the store stood (0 when it had no position) and the first available one.</param>
public sealed record RetentionLoss(string Topic, int Partition, long FirstAvailableOffset, long Lost);
