namespace Ingest.Storage;

/// <summary>
/// What a write transaction's trees have done so far, for tests and diagnostics: they show how much of the
/// tree a batch touched (a sorted batch walks each leaf once; one change at a time descends from the root
/// every time). Counting costs one increment per page access; nothing is timed.
/// </summary>
/// <param name="PageAccesses">Pages read or reached through the transaction (a page read twice counts twice).</param>
/// <param name="Descents">Root-to-leaf searches of any tree, fixed-size tree or cursor positioning.</param>
/// <param name="PostingListUpdates">Calls of <see cref="PostingLists.PostingList.Update"/> (an Add or Remove is one).</param>
/// <param name="PostingListLeavesMerged">Existing posting list leaves decoded, merged and rewritten by those updates.</param>
public readonly record struct TransactionCounters(long PageAccesses, long Descents, long PostingListUpdates, long PostingListLeavesMerged)
{
    /// <summary>The work done between <paramref name="earlier"/> and this reading.</summary>
    public TransactionCounters Since(TransactionCounters earlier) => new(
        PageAccesses - earlier.PageAccesses,
        Descents - earlier.Descents,
        PostingListUpdates - earlier.PostingListUpdates,
        PostingListLeavesMerged - earlier.PostingListLeavesMerged);
}
