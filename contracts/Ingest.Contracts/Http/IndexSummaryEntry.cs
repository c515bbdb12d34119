namespace Ingest.Contracts.Http;

/// <summary>An index in <c>GET /indexes</c> and <c>/stats</c>.</summary>
/// <param name="Name">The index's name.</param>
/// <param name="State">"indexing" (caught up or catching up), "rebuilding" (a new build runs side by side) or "errored" (see <paramref name="Error"/>).</param>
/// <param name="Error">Why an errored index stopped (its damaged file and offset); null otherwise.</param>
/// <param name="Stale">The index has not yet indexed every change of its collections.</param>
/// <param name="LastIndexedEtag">The etag of the last change the index committed.</param>
/// <param name="CollectionsLastEtag">The highest last etag over its collections.</param>
/// <param name="Entries">Documents in the index.</param>
/// <param name="Automatic">Made by a query (named <c>Auto/...</c>), deleted when no query used it for the idle timeout.</param>
/// <param name="Disk">The index's files on disk (a side-by-side rebuild's included); in <c>/stats</c> only.</param>
public sealed record IndexSummaryEntry(string Name, string State, string? Error, bool Stale, long LastIndexedEtag, long CollectionsLastEtag, long Entries, bool Automatic, DiskSpaceEntry? Disk = null)
{
    /// <summary>The definition has a reduce: queried with <c>from index</c> as groups, and able to answer covered collection <c>group by</c> queries.</summary>
    public bool MapReduce { get; init; }
}
