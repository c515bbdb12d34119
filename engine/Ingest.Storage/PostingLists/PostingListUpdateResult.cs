namespace Ingest.Storage.PostingLists;

/// <summary>What a <see cref="PostingList.Update"/> changed: ids newly added and ids actually removed.</summary>
public readonly record struct PostingListUpdateResult(long Added, long Removed);
