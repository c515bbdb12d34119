using Ingest.Documents;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// The store check a row of an index query passes before it is written (QueryResults.WriteNextIndexed), done from the
/// entry's id bytes with <see cref="DocumentReader.TryGetEtag"/>: the document is live in the store snapshot (not
/// deleted or expired since the index snapshot) and, on a continued page, not written after the first page's bound.
/// Used where the index does not agree with the store (QueryExecutor.StoreAgrees) and no document body is needed.
/// </summary>
internal static class EntryLiveness
{
    /// <param name="bound">A continuation's bound etag, or null on a first page (a first page takes newer documents too).</param>
    public static bool IsLive(IndexReader index, DocumentReader documents, long entry, long? bound) =>
        index.TryReadDocumentId(entry, out var idUtf8) && IsLive(documents, idUtf8, bound);

    /// <summary><see cref="IsLive(IndexReader, DocumentReader, long, long?)"/> for an entry whose id is read already.</summary>
    public static bool IsLive(DocumentReader documents, ReadOnlySpan<byte> idUtf8, long? bound) =>
        documents.TryGetEtag(idUtf8, out var etag) && (bound is not { } b || etag <= b);

    /// <summary>
    /// Whether the first entries of a page in entry order (<paramref name="kept"/>: the smallest matches past a
    /// continuation, at most <paramref name="requested"/>) give the same page as the full match list would: either they
    /// are every such match, or past <paramref name="skip"/> entries they hold <paramref name="limit"/> live ones and one
    /// entry more (so the full list's page ends on the same entry and also has more after it). When they do, the dead
    /// entries among those checked are removed (the rows would skip them; an offset still counts the entries before
    /// them), so every row the page writes is known live and needs no second look.
    /// </summary>
    public static bool FillsPage(IndexReader index, DocumentReader documents, List<long> kept, int requested, int skip, int limit, long? bound)
    {
        if (skip >= kept.Count)
        {
            return true; // the offset passes every match (the kept ones are all of them: requested exceeds the offset)
        }

        var live = 0;
        var write = skip;
        var i = skip;
        for (; i < kept.Count && live < limit; i++)
        {
            if (IsLive(index, documents, kept[i], bound))
            {
                kept[write++] = kept[i];
                live++;
            }
        }

        if (live < limit && kept.Count >= requested)
        {
            return false; // the full list may hold live entries past the kept ones
        }

        if (live == limit && i == kept.Count && kept.Count >= requested)
        {
            return false; // the page ends on the last kept entry: whether more follow is not known from them
        }

        kept.RemoveRange(write, i - write);
        return true;
    }
}
