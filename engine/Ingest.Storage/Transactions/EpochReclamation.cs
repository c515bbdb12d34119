using Ingest.Storage.Paging;

namespace Ingest.Storage.Transactions;

/// <summary>
/// Frees what commits and flushes take out of use once no active transaction can reach it: scratch copies of page
/// versions, the page table's nodes and slot arrays, and data file mappings a growth replaced. Each is stamped when
/// it is retired, in one of two ways (see <see cref="ReaderSlots"/>):
/// <list type="bullet">
/// <item>with a transaction id: a version a later commit superseded, a mapping a flush grew past. A snapshot at that id
/// or later no longer reads it, so it is freed once <see cref="ReaderSlots.Oldest"/> reaches the stamp;</item>
/// <item>with an epoch: a version or node a flush unlinked, a slot array a rebuild replaced. Every snapshot may still
/// have reached it before the unlinking, which a snapshot id cannot tell, so it is freed once every active transaction
/// claimed its slot in that epoch or later (<see cref="ReaderSlots.OldestEpoch"/>).</item>
/// </list>
/// Nothing here is on the read transaction path (a reader only claims and releases a slot): it runs when a write
/// transaction ends and when a flush publishes. One lock guards the lists; it is the innermost of the environment's
/// locks (the lock order is on <see cref="StorageEnvironment"/>) and only the page table's and scratch memory's own
/// locks are taken under it.
/// </summary>
internal sealed unsafe class EpochReclamation
{
    private readonly ReaderSlots _slots;
    private readonly ScratchMemory _scratch;
    private readonly PageTable _table;
    private readonly Lock _lock = new();
    private readonly List<(long RetireTx, PageVersion Version)> _retired = [];
    private readonly List<(long Epoch, PageVersion Version)> _retiredFlushed = []; // see ReaderSlots: freed by epoch, not snapshot
    private readonly List<(long Epoch, PageVersionNode Node)> _retiredNodes = []; // the page table's nodes, the same way
    private readonly List<(long Epoch, object Slots)> _retiredSlots = []; // page table arrays a rebuild replaced
    private readonly List<(long RetireTx, DataMap Map)> _retiredMaps = [];
    private readonly List<PageVersionNode> _recycle = [];
    private readonly List<PageVersion> _readyVersions = [];

    /// <param name="table">The page table every snapshot shares: unlinked nodes and replaced slot arrays go back to it.</param>
    public EpochReclamation(ReaderSlots slots, ScratchMemory scratch, PageTable table)
    {
        _slots = slots;
        _scratch = scratch;
        _table = table;
    }

    /// <summary>A commit at <paramref name="retireTx"/> superseded these versions: snapshots from it on read the new ones.</summary>
    public void RetireSuperseded(List<PageVersion> versions, long retireTx)
    {
        if (versions.Count == 0)
        {
            return;
        }

        lock (_lock)
        {
            foreach (var v in versions)
            {
                _retired.Add((retireTx, v));
            }
        }
    }

    /// <summary>
    /// A commit or a flush replaced the page table's array: it is reused once no transaction begun before
    /// <paramref name="epoch"/> (advanced under the publish lock, after the replacement) can probe it.
    /// </summary>
    public void RetireSlots(object slots, long epoch)
    {
        lock (_lock)
        {
            _retiredSlots.Add((epoch, slots));
        }
    }

    /// <summary>
    /// A flush unlinked <paramref name="versions"/> and <paramref name="nodes"/> from the page table before starting
    /// <paramref name="epoch"/>; frees at once what no transaction but the flush's own <paramref name="flushSlot"/> can reach.
    /// </summary>
    public void RetireFlushed(List<PageVersion> versions, List<PageVersionNode> nodes, long epoch, int flushSlot)
    {
        lock (_lock)
        {
            foreach (var v in versions)
            {
                _retiredFlushed.Add((epoch, v));
            }

            foreach (var n in nodes)
            {
                _retiredNodes.Add((epoch, n));
            }

            // Now, not after the header sync that follows: a write transaction that starts meanwhile would find the
            // pool empty and fault in fresh pages. The flush's own slot reads none of them any more.
            FreeFlushed(exceptSlot: flushSlot);
        }
    }

    /// <summary>A flush grew the data file: snapshots before <paramref name="retireTx"/> may still read through <paramref name="map"/>.</summary>
    public void RetireMap(DataMap map, long retireTx)
    {
        lock (_lock)
        {
            _retiredMaps.Add((retireTx, map));
        }
    }

    /// <summary>Frees scratch copies that no active transaction's snapshot can reach any more.</summary>
    public void FreeRetired()
    {
        lock (_lock)
        {
            if (_retired.Count == 0 && _retiredMaps.Count == 0 && _retiredFlushed.Count == 0 && _retiredSlots.Count == 0)
            {
                return;
            }

            FreeFlushed(exceptSlot: -1);

            var oldest = _slots.Oldest();
            for (var i = _retiredMaps.Count - 1; i >= 0; i--)
            {
                if (_retiredMaps[i].RetireTx <= oldest)
                {
                    _retiredMaps[i].Map.Dispose();
                    _retiredMaps.RemoveAt(i);
                }
            }

            FreeVersions(_retired, oldest);
        }
    }

    /// <summary>When the environment closes, with no transaction left: frees everything still retired.</summary>
    public void FreeAll()
    {
        lock (_lock)
        {
            foreach (var (_, v) in _retired)
            {
                _scratch.FreePages((byte*)v.Pointer, v.Pages);
            }

            _retired.Clear();
            foreach (var (_, v) in _retiredFlushed)
            {
                _scratch.FreePages((byte*)v.Pointer, v.Pages);
            }

            _retiredFlushed.Clear();
            _retiredNodes.Clear();
            _retiredSlots.Clear();
            foreach (var (_, map) in _retiredMaps)
            {
                map.Dispose();
            }

            _retiredMaps.Clear();
        }
    }

    /// <summary>Moves the items stamped at most <paramref name="upTo"/> from <paramref name="retired"/> to <paramref name="ready"/>.</summary>
    private static void TakeReady<T>(List<(long Stamp, T Item)> retired, long upTo, List<T> ready)
    {
        for (var i = retired.Count - 1; i >= 0; i--)
        {
            if (retired[i].Stamp <= upTo)
            {
                ready.Add(retired[i].Item);
                retired[i] = retired[^1];
                retired.RemoveAt(retired.Count - 1);
            }
        }
    }

    /// <summary>Frees the scratch copies stamped at most <paramref name="upTo"/>. Caller holds the lock.</summary>
    private void FreeVersions(List<(long Stamp, PageVersion Version)> retired, long upTo)
    {
        _readyVersions.Clear();
        TakeReady(retired, upTo, _readyVersions);
        _scratch.BeginFreeBatch();
        try
        {
            foreach (var v in _readyVersions)
            {
                _scratch.FreePages((byte*)v.Pointer, v.Pages);
            }
        }
        finally
        {
            _scratch.EndFreeBatch();
        }

        _readyVersions.Clear();
    }

    /// <summary>Frees flushed versions no transaction but <paramref name="exceptSlot"/>'s can reach. Caller holds the lock.</summary>
    private void FreeFlushed(int exceptSlot)
    {
        if (_retiredFlushed.Count == 0 && _retiredNodes.Count == 0 && _retiredSlots.Count == 0)
        {
            return;
        }

        var oldestEpoch = _slots.OldestEpoch(exceptSlot);
        _recycle.Clear();
        TakeReady(_retiredNodes, oldestEpoch, _recycle);
        if (_recycle.Count > 0)
        {
            _table.Recycle(_recycle);
            _recycle.Clear();
        }

        for (var i = _retiredSlots.Count - 1; i >= 0; i--)
        {
            if (_retiredSlots[i].Epoch <= oldestEpoch)
            {
                _table.RecycleSlots(_retiredSlots[i].Slots);
                _retiredSlots.RemoveAt(i);
            }
        }

        FreeVersions(_retiredFlushed, oldestEpoch);
    }
}
