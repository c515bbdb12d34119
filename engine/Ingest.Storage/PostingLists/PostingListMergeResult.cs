namespace Ingest.Storage.PostingLists;

/// <summary>What one leaf merge did: the leaves written, the ids they hold, and the ids actually added and removed.</summary>
internal readonly record struct PostingListMergeResult(int Leaves, long Count, long Added, long Removed);
