using System.Runtime.CompilerServices;

namespace Ingest.Storage.Paging;

/// <summary>
/// The page translation table: page number -> latest committed version in scratch memory.
/// Immutable once published, so any number of readers look pages up without locks; the writer
/// (at commit) and the flusher (after writing pages to the data file) publish modified copies.
/// Open addressing with linear probing over one flat array, so a copy is one array copy.
/// Page 0 (the file header) is never in the table, so Page == 0 marks an empty slot.
/// </summary>
internal sealed class PageTable
{
    public static readonly PageTable Empty = new(16);

    private readonly PageVersion[] _entries;
    private readonly int _mask;

    private PageTable(int capacity)
    {
        _entries = new PageVersion[capacity];
        _mask = capacity - 1;
    }

    public int Count { get; private set; }

    public PageVersion[] RawEntries => _entries;

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

    /// <summary>A copy with <paramref name="added"/> inserted; versions they replace go to <paramref name="replaced"/>.</summary>
    public PageTable With(ReadOnlySpan<PageVersion> added, List<PageVersion> replaced)
    {
        var needed = Count + added.Length;
        var capacity = _entries.Length;
        while (capacity < needed * 2)
        {
            capacity *= 2;
        }

        PageTable copy;
        if (capacity == _entries.Length)
        {
            copy = new PageTable(capacity) { Count = Count };
            Array.Copy(_entries, copy._entries, _entries.Length);
        }
        else
        {
            copy = new PageTable(capacity);
            foreach (ref var e in _entries.AsSpan())
            {
                if (e.Page != 0)
                {
                    copy.InsertNew(e);
                }
            }
        }

        foreach (var v in added)
        {
            copy.Upsert(v, replaced);
        }

        return copy;
    }

    /// <summary>A copy without the entries for which <paramref name="remove"/> holds (a pure function of the entry).</summary>
    public PageTable Without<TState>(Func<PageVersion, TState, bool> remove, TState state, List<PageVersion> removed)
    {
        var remaining = 0;
        foreach (ref var e in _entries.AsSpan())
        {
            if (e.Page != 0 && !remove(e, state))
            {
                remaining++;
            }
        }

        // Sized by what remains: a table emptied by a flush must not keep a bulk load's capacity,
        // since every commit copies the whole array.
        var capacity = 16;
        while (capacity < remaining * 2)
        {
            capacity *= 2;
        }

        var copy = new PageTable(capacity);
        foreach (ref var e in _entries.AsSpan())
        {
            if (e.Page == 0)
            {
                continue;
            }

            if (remove(e, state))
            {
                removed.Add(e);
            }
            else
            {
                copy.InsertNew(e);
            }
        }

        return copy;
    }

    private void InsertNew(in PageVersion v)
    {
        var i = Hash(v.Page) & _mask;
        while (_entries[i].Page != 0)
        {
            i = (i + 1) & _mask;
        }

        _entries[i] = v;
        Count++;
    }

    private void Upsert(in PageVersion v, List<PageVersion> replaced)
    {
        var i = Hash(v.Page) & _mask;
        while (true)
        {
            ref var e = ref _entries[i];
            if (e.Page == 0)
            {
                e = v;
                Count++;
                return;
            }

            if (e.Page == v.Page)
            {
                replaced.Add(e);
                e = v;
                return;
            }

            i = (i + 1) & _mask;
        }
    }
}
