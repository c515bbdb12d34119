using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Transactions;

/// <summary>
/// The write transaction's modified pages: page number -> scratch copy. Every page access of a
/// write transaction looks here first, so it is an open-addressing table over one flat array
/// (one probe, usually one cache line) rather than a Dictionary (bucket array, then entry array).
/// Page 0 is never modified by a transaction, so Page == 0 marks an empty slot.
/// </summary>
internal sealed class DirtyPageMap
{
    private const int MinCapacity = 256;
    private PageVersion[] _entries = new PageVersion[MinCapacity];
    private int _mask = MinCapacity - 1;

    public int Count { get; private set; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Hash(long page) => (int)(((ulong)page * 0x9E3779B97F4A7C15UL) >> 32);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public nint Find(long page)
    {
        var entries = _entries;
        var i = Hash(page) & _mask;
        while (true)
        {
            ref var e = ref entries[i];
            if (e.Page == page)
            {
                return e.Pointer;
            }

            if (e.Page == 0)
            {
                return 0;
            }

            i = (i + 1) & _mask;
        }
    }

    /// <summary>Adds a page that is not in the map.</summary>
    public void Add(in PageVersion version)
    {
        if ((Count + 1) * 2 > _entries.Length)
        {
            Grow();
        }

        var i = Hash(version.Page) & _mask;
        while (_entries[i].Page != 0)
        {
            i = (i + 1) & _mask;
        }

        _entries[i] = version;
        Count++;
    }

    public bool Remove(long page, out PageVersion removed)
    {
        var i = Hash(page) & _mask;
        while (true)
        {
            if (_entries[i].Page == page)
            {
                break;
            }

            if (_entries[i].Page == 0)
            {
                removed = default;
                return false;
            }

            i = (i + 1) & _mask;
        }

        removed = _entries[i];
        Count--;

        // Backward-shift deletion: move later entries of the probe run into the hole when their home allows it.
        var j = i;
        while (true)
        {
            j = (j + 1) & _mask;
            if (_entries[j].Page == 0)
            {
                break;
            }

            var home = Hash(_entries[j].Page) & _mask;
            var stays = i <= j ? home > i && home <= j : home > i || home <= j;
            if (!stays)
            {
                _entries[i] = _entries[j];
                i = j;
            }
        }

        _entries[i] = default;
        return true;
    }

    /// <summary>The used slots' entries, for commit and abort (skip entries whose Page is 0).</summary>
    public ReadOnlySpan<PageVersion> RawEntries => _entries;

    public void Clear()
    {
        if (_entries.Length > 64 * 1024)
        {
            // A bulk load grew the table: do not make every later small transaction clear it.
            _entries = new PageVersion[MinCapacity];
            _mask = MinCapacity - 1;
        }
        else if (Count > 0)
        {
            Array.Clear(_entries);
        }

        Count = 0;
    }

    private void Grow()
    {
        var old = _entries;
        _entries = new PageVersion[old.Length * 2];
        _mask = _entries.Length - 1;
        Count = 0;
        foreach (ref var e in old.AsSpan())
        {
            if (e.Page != 0)
            {
                Add(e);
            }
        }
    }
}
