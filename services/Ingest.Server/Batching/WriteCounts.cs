namespace Ingest.Server.Batching;

/// <summary>What one built write holds, by item: puts and deletes, dead letters, and items dropped as stale.</summary>
/// <param name="Written">Puts and deletes (a transformed message counts its operations).</param>
/// <param name="DeadLetters">Dead letters, including messages the store refused.</param>
/// <param name="Dropped">Items left out because their partition or channel was lost; the broker redelivers them.</param>
internal readonly record struct WriteCounts(long Written, long DeadLetters, long Dropped);
