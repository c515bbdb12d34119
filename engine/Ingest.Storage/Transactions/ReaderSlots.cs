using System.Runtime.InteropServices;

namespace Ingest.Storage.Transactions;

/// <summary>
/// Tracks the snapshot every active transaction reads, so the flusher knows which page versions
/// nobody needs any more. One cache line per slot; a thread starts probing at a slot derived
/// from its id, so concurrent threads usually claim different slots with a single CAS. Scanning
/// for the oldest is done by the flusher and at commit, never by readers.
/// The token lets a copy of a disposed <see cref="ReadTransaction"/> detect that its slot was released.
/// <para>
/// Each slot also records the epoch current when it was claimed. The flusher advances the epoch after it unlinks
/// flushed versions from the page table: a transaction that claimed its slot afterwards cannot reach them, whatever
/// its snapshot, so they may be freed once no older claim is active. A snapshot id cannot tell the two apart (both
/// read the same last commit), and waiting for a newer commit kept a flushed bulk load's pages (35k) out of the
/// scratch pool for the whole of the next write transaction, which then faulted in as many fresh pages.
/// </para>
/// </summary>
internal sealed class ReaderSlots
{
    public const long Free = long.MaxValue;
    private const int SlotCount = 256;
    private readonly Slot[] _slots = new Slot[SlotCount];
    private long _epoch;

    public ReaderSlots()
    {
        for (var i = 0; i < _slots.Length; i++)
        {
            _slots[i].TxId = Free;
        }
    }

    /// <summary>Claims a slot recording <paramref name="txId"/> (a lower bound of the snapshot the caller then reads). Full fence.</summary>
    public int Acquire(long txId, out long token)
    {
        var start = (Environment.CurrentManagedThreadId * 7) & (SlotCount - 1);
        for (var n = 0; n < SlotCount; n++)
        {
            var i = (start + n) & (SlotCount - 1);
            ref var slot = ref _slots[i];
            if (Volatile.Read(ref slot.TxId) == Free && Interlocked.CompareExchange(ref slot.TxId, txId, Free) == Free)
            {
                // Read after the claim (a full fence): an epoch read here that a flush already advanced means this
                // transaction sees that flush's unlinking. Until this write the slot shows its previous holder's
                // epoch, which is no newer, so a scan meanwhile only waits longer.
                Volatile.Write(ref slot.Epoch, Volatile.Read(ref _epoch));
                token = slot.Token + 1;
                Volatile.Write(ref slot.Token, token);
                return i;
            }
        }

        throw new InvalidOperationException($"More than {SlotCount} transactions are active at once.");
    }

    public bool IsActive(int slot, long token) => (uint)slot < SlotCount && Volatile.Read(ref _slots[slot].Token) == token && token != 0;

    public bool Release(int slot, long token)
    {
        if ((uint)slot >= SlotCount)
        {
            return false;
        }

        ref var s = ref _slots[slot];
        if (Volatile.Read(ref s.Token) != token)
        {
            return false;
        }

        Volatile.Write(ref s.Token, token + 1);
        Volatile.Write(ref s.TxId, Free);
        return true;
    }

    /// <summary>
    /// Starts a new epoch; call after unlinking page versions. Returns it: the versions may be freed once
    /// <see cref="OldestEpoch"/> reaches it. Full fence.
    /// </summary>
    public long AdvanceEpoch() => Interlocked.Increment(ref _epoch);

    /// <summary>The oldest epoch any active transaction claimed its slot in, or <see cref="Free"/>.</summary>
    public long OldestEpoch(int exceptSlot = -1)
    {
        Interlocked.MemoryBarrier();
        var min = Free;
        for (var i = 0; i < _slots.Length; i++)
        {
            if (i != exceptSlot && Volatile.Read(ref _slots[i].TxId) != Free)
            {
                var e = Volatile.Read(ref _slots[i].Epoch);
                if (e < min)
                {
                    min = e;
                }
            }
        }

        return min;
    }

    /// <summary>The oldest snapshot any active transaction may read, or <see cref="Free"/>.</summary>
    public long Oldest(int exceptSlot = -1)
    {
        Interlocked.MemoryBarrier();
        var min = Free;
        for (var i = 0; i < _slots.Length; i++)
        {
            var v = Volatile.Read(ref _slots[i].TxId);
            if (v < min && i != exceptSlot)
            {
                min = v;
            }
        }

        return min;
    }

    public int ActiveCount
    {
        get
        {
            var n = 0;
            for (var i = 0; i < _slots.Length; i++)
            {
                if (Volatile.Read(ref _slots[i].TxId) != Free)
                {
                    n++;
                }
            }

            return n;
        }
    }

    [StructLayout(LayoutKind.Explicit, Size = 64)]
    private struct Slot
    {
        [FieldOffset(0)]
        public long TxId;

        [FieldOffset(8)]
        public long Token;

        [FieldOffset(16)]
        public long Epoch;
    }
}
