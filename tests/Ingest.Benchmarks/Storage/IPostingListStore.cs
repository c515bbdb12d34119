namespace Ingest.Benchmarks.Storage;

/// <summary>
/// Sorted sets of int64 ids in named posting lists (Ingest only: neither baseline has the structure).
/// Each mutating call is one durable write transaction.
/// </summary>
internal interface IPostingListStore : IStorageSystem
{
    /// <summary>Adds ascending ids to the list, creating it if needed.</summary>
    void AddSorted(string list, ReadOnlySpan<long> sortedIds);

    /// <summary>Enumerates the whole list in order in a read transaction.</summary>
    PostingListScan Scan(string list);

    /// <summary>Bytes the list occupies in the store (its pages), for bytes-per-id.</summary>
    long SizeInBytes(string list);

    /// <summary>Removes ascending ids in one batch call, e.g. <c>Update([], removals)</c>.</summary>
    void RemoveSorted(string list, ReadOnlySpan<long> sortedIds);

    /// <summary>Removes ids with one call each, in the order given.</summary>
    void RemoveOneByOne(string list, ReadOnlySpan<long> ids);
}
