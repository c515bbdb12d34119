using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Transactions;

/// <summary>
/// What one commit published: its tx id, the page table of versions still in scratch memory, and
/// the data file mapping. Immutable; readers hold a reference and look pages up without locks.
/// </summary>
internal sealed unsafe class Snapshot(long txId, PageTable table, DataMap map)
{
    public long TxId { get; } = txId;

    public PageTable Table { get; } = table;

    public DataMap Map { get; } = map;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* GetPage(long page)
    {
        if (Table.Count != 0)
        {
            var p = Table.Find(page);
            if (p != 0)
            {
                return (byte*)p;
            }
        }

        return Map.GetPage(page);
    }
}
