namespace Ingest.Server.Sources;

/// <summary>What one built write batch holds: puts and deletes, dead letters, and items dropped as stale.</summary>
internal readonly record struct BatchCounts(long Written, long DeadLetters, long Dropped);
