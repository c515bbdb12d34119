using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Transactions;

/// <summary>
/// What one commit published: its tx id, the page table of versions still in scratch memory (shared by
/// every snapshot; the tx id picks the versions this one sees), and the data file. Immutable;
/// readers hold a reference and look pages up without locks.
/// </summary>
internal sealed unsafe class Snapshot(long txId, PageTable table, DataFile data)
{
    public long TxId { get; } = txId;

    public PageTable Table { get; } = table;

    /// <summary>
    /// The data file's current mapping, not the one when this snapshot was taken: a flush unlinks
    /// versions from the shared table only after the data file holds them (grown if needed), and
    /// it never holds a version newer than the oldest reader's snapshot.
    /// </summary>
    public DataMap Map => data.Map;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* GetPage(long page)
    {
        var version = FindVersion(page);
        return version != 0 ? (byte*)version : Map.GetPage(page);
    }

    /// <summary>
    /// Where <paramref name="page"/> is, without verifying its checksum on first use (null beyond the data file): for
    /// a prefetch, which must neither pay for nor fail on a page the caller may never read.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)] // per leaf of a sorted delete, whose first call would run it unoptimized
    public byte* GetPageUnverified(long page)
    {
        var version = FindVersion(page);
        return version != 0 ? (byte*)version : Map.GetPageUnverified(page);
    }

    /// <summary>The newest version of <paramref name="page"/> this snapshot sees while it is in scratch memory, else 0.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private nint FindVersion(long page) => Table.Count != 0 ? Table.Find(page, TxId) : 0;
}
