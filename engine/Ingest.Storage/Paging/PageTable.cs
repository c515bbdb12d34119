using System.Runtime.CompilerServices;

namespace Ingest.Storage.Paging;

/// <summary>
/// The page translation table: page number -> its committed versions still in scratch memory, newest
/// first, each tagged with the transaction that wrote it. One table serves every snapshot: a reader
/// takes the newest version its transaction id can see, so a commit adds a few versions instead of
/// copying the table (which made every commit allocate the whole table).
/// <para>
/// Readers look pages up without locks. The writer (at commit) and the flusher (after writing versions
/// to the data file) change the table under the environment's publish lock, in an order readers can
/// follow: a new version is complete before it becomes the head of its chain; a version is unlinked
/// only once the data file holds it (or a newer one every reader can see), and freed only once no
/// reader can reach it (see StorageEnvironment's retirement). Growing the table publishes a new array;
/// a reader still on the old one only misses versions newer than its snapshot.
/// </para>
/// Open addressing with linear probing; page 0 (the file header) is never in the table, so Page == 0
/// marks an empty slot. A slot whose chain was emptied keeps its page number until the next rebuild.
/// </summary>
internal sealed class PageTable
{
    private const int MinCapacity = 16;
    private readonly Stack<PageVersionNode> _spareNodes = new();
    private readonly Lock _spareLock = new();
    private Slot[] _slots = new Slot[MinCapacity];
    private Slot[]? _replacedSlots;
    private Slot[]? _spareSlots;
    private int _used;
    private int _nodes; // ever allocated: in chains, retired or spare

    /// <summary>Pages that have at least one version in the table.</summary>
    public int Count { get; private set; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Hash(long page) => (int)(((ulong)page * 0x9E3779B97F4A7C15UL) >> 32);

    /// <summary>The newest version of <paramref name="page"/> written by transaction <paramref name="txId"/> or earlier, or 0.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public nint Find(long page, long txId)
    {
        var slots = Volatile.Read(ref _slots);
        var mask = slots.Length - 1;
        var i = Hash(page) & mask;
        while (true)
        {
            ref var s = ref slots[i];
            var p = Volatile.Read(ref s.Page);
            if (p == page)
            {
                for (var n = Volatile.Read(ref s.Head); n != null; n = Volatile.Read(ref n.Next))
                {
                    if (n.Version.TxId <= txId)
                    {
                        return n.Version.Pointer;
                    }
                }

                return 0;
            }

            if (p == 0)
            {
                return 0;
            }

            i = (i + 1) & mask;
        }
    }

    /// <summary>
    /// Makes <paramref name="added"/> (one commit's versions) the newest of their pages. The versions
    /// they supersede go to <paramref name="replaced"/>, to be freed once no reader can see them.
    /// Caller holds the publish lock.
    /// </summary>
    public void Publish(ReadOnlySpan<PageVersion> added, List<PageVersion> replaced)
    {
        if ((_used + added.Length) * 2 > _slots.Length)
        {
            var before = _slots.Length;
            Rebuild(Count + added.Length);
            if (_slots.Length > before)
            {
                AddSpareNodes(_slots.Length);
            }
        }

        var slots = _slots;
        var mask = slots.Length - 1;
        foreach (ref readonly var v in added)
        {
            var i = Hash(v.Page) & mask;
            while (true)
            {
                ref var s = ref slots[i];
                if (s.Page == v.Page)
                {
                    var head = s.Head;
                    if (head == null)
                    {
                        Count++;
                    }
                    else
                    {
                        replaced.Add(head.Version);
                    }

                    Volatile.Write(ref s.Head, NewNode(v, head));
                    break;
                }

                if (s.Page == 0)
                {
                    // The chain before the page number: a reader that sees the number finds the version.
                    Volatile.Write(ref s.Head, NewNode(v, null));
                    Volatile.Write(ref s.Page, v.Page);
                    _used++;
                    Count++;
                    break;
                }

                i = (i + 1) & mask;
            }
        }
    }

    /// <summary>
    /// Gives nodes <see cref="RemoveFlushed"/> unlinked back for reuse: only once no transaction that began before
    /// that flush is active (a reader may be walking them). Any thread.
    /// </summary>
    public void Recycle(List<PageVersionNode> nodes)
    {
        lock (_spareLock)
        {
            foreach (var n in nodes)
            {
                n.Next = null;
                _spareNodes.Push(n);
            }
        }
    }

    /// <summary>
    /// The slot array the last rebuild replaced, if any, and forgets it: the caller hands it back with
    /// <see cref="RecycleSlots"/> once no transaction begun before the rebuild is active. Caller holds the publish lock.
    /// </summary>
    public object? DetachReplaced()
    {
        var replaced = _replacedSlots;
        _replacedSlots = null;
        return replaced;
    }

    /// <summary>Keeps an array from <see cref="DetachReplaced"/> for the next rebuild of its size. Any thread.</summary>
    public void RecycleSlots(object slots)
    {
        lock (_spareLock)
        {
            if (slots is Slot[] array && (_spareSlots == null || array.Length >= _spareSlots.Length))
            {
                _spareSlots = array;
            }
        }
    }

    /// <summary>Pooled nodes ready for reuse (tests).</summary>
    public int SpareNodes
    {
        get
        {
            lock (_spareLock)
            {
                return _spareNodes.Count;
            }
        }
    }

    /// <summary>
    /// Grows the node pool with the slot array, to as many nodes as the array has slots (twice the pages it may hold,
    /// about as many versions as a table of that size held in the batched-puts runs: hot pages have several). Nodes come
    /// back only when a flush unlinks them, so a table filling up to a large flush threshold for the first time
    /// allocated one per published version across many commits; in doublings, the allocation is where the table grows.
    /// </summary>
    private void AddSpareNodes(int total)
    {
        lock (_spareLock)
        {
            for (; _nodes < total; _nodes++)
            {
                _spareNodes.Push(new PageVersionNode());
            }
        }
    }

    // One per published version: a commit of 1,000 random puts published ~1,400 (56 bytes each), most of what it allocated.
    private PageVersionNode NewNode(in PageVersion version, PageVersionNode? next)
    {
        PageVersionNode? node = null;
        lock (_spareLock)
        {
            _spareNodes.TryPop(out node);
        }

        if (node == null)
        {
            node = new PageVersionNode();
            _nodes++; // under the publish lock, as AddSpareNodes
        }
        node.Version = version;
        node.Next = next; // both before the caller's Volatile.Write publishes the node
        return node;
    }

    /// <summary>
    /// For each page, its newest version written by transaction <paramref name="upTo"/> or earlier: what a
    /// flush writes to the data file, so that the file holds every page as of <paramref name="upTo"/> once
    /// the header says so. That holds even where a newer version exists: the journal records a page as a
    /// diff against the version before it (PageDiff), and replay from <paramref name="upTo"/> applies the
    /// next diff to what the file has. Runs beside commits; the caller pins a tx id no later than
    /// <paramref name="upTo"/>, so a superseded version reached here is not freed while it is written.
    /// </summary>
    public void CollectFlushable(long visibleTx, long upTo, List<PageVersion> into, out long end)
    {
        end = 0;
        var slots = Volatile.Read(ref _slots);
        for (var i = 0; i < slots.Length; i++)
        {
            if (Volatile.Read(ref slots[i].Page) == 0)
            {
                continue;
            }

            for (var n = Volatile.Read(ref slots[i].Head); n != null; n = Volatile.Read(ref n.Next))
            {
                if (n.Version.TxId <= visibleTx && n.Version.TxId <= upTo)
                {
                    into.Add(n.Version);
                    end = Math.Max(end, n.Version.Page + n.Version.Pages);
                    break;
                }
            }
        }
    }

    /// <summary>
    /// Unlinks <paramref name="flushed"/> (now in the data file) and every older version of their pages.
    /// A flushed version that was still its page's newest goes to <paramref name="removed"/> to be freed
    /// once no reader can see it (an older or superseded one was handed out by <see cref="Publish"/>).
    /// The nodes unlinked go to <paramref name="unlinked"/>, for <see cref="Recycle"/> under the same rule.
    /// Caller holds the publish lock.
    /// </summary>
    public void RemoveFlushed(List<PageVersion> flushed, List<PageVersion> removed, List<PageVersionNode> unlinked)
    {
        var slots = _slots;
        var mask = slots.Length - 1;
        foreach (var v in flushed)
        {
            var i = Hash(v.Page) & mask;
            while (slots[i].Page != v.Page)
            {
                if (slots[i].Page == 0)
                {
                    throw new InvalidOperationException($"Flushed page {v.Page} is not in the page table.");
                }

                i = (i + 1) & mask;
            }

            ref var s = ref slots[i];
            if (s.Head != null && s.Head.Version.TxId == v.TxId)
            {
                removed.Add(v);
                var head = s.Head;
                Volatile.Write(ref s.Head, null);
                Count--;
                AddChain(head, unlinked);
                continue;
            }

            for (var n = s.Head; n != null; n = n.Next)
            {
                if (n.Next != null && n.Next.Version.TxId == v.TxId)
                {
                    var tail = n.Next;
                    Volatile.Write(ref n.Next, null);
                    AddChain(tail, unlinked);
                    break;
                }
            }
        }

        if (_slots.Length > MinCapacity && Count * 8 < _used)
        {
            // Mostly emptied by this flush: drop the empty slots so probes stay short. At the same capacity: steady
            // commits fill it up to the flush threshold again, and regrowing from a smaller array allocated a new
            // array per doubling per flush (24 KB per commit of batched puts). The old array comes back for the
            // next rebuild (see DetachReplaced), so steady work alternates between two.
            Rebuild(_slots.Length / 2);
        }
    }

    private static void AddChain(PageVersionNode? node, List<PageVersionNode> into)
    {
        for (; node != null; node = node.Next)
        {
            into.Add(node);
        }
    }

    /// <summary>Every page's newest version (the ones <see cref="RemoveFlushed"/> has not handed out): what closing frees.</summary>
    public void CollectNewest(List<PageVersion> into)
    {
        foreach (ref var s in _slots.AsSpan())
        {
            if (s.Page != 0 && s.Head != null)
            {
                into.Add(s.Head.Version);
            }
        }
    }

    private void Rebuild(int live)
    {
        var capacity = MinCapacity;
        while (capacity < live * 2)
        {
            capacity *= 2;
        }

        Slot[]? slots = null;
        lock (_spareLock)
        {
            if (_spareSlots != null && _spareSlots.Length == capacity)
            {
                slots = _spareSlots;
                _spareSlots = null;
            }
        }

        if (slots != null)
        {
            Array.Clear(slots);
        }
        else
        {
            slots = new Slot[capacity];
        }

        _replacedSlots = _slots; // readers may still probe it: the caller retires it (DetachReplaced)
        var mask = capacity - 1;
        var used = 0;
        foreach (ref var s in _slots.AsSpan())
        {
            if (s.Page == 0 || s.Head == null)
            {
                continue;
            }

            var i = Hash(s.Page) & mask;
            while (slots[i].Page != 0)
            {
                i = (i + 1) & mask;
            }

            slots[i] = s;
            used++;
        }

        _used = used;
        Volatile.Write(ref _slots, slots);
    }

    private struct Slot
    {
        public long Page;
        public PageVersionNode? Head;
    }
}
