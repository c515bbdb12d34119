using System.IO.MemoryMappedFiles;
using System.Runtime.CompilerServices;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Paging;

/// <summary>
/// A read-only mapping of the data file's first <see cref="PageCount"/> pages. The file grows
/// in large steps; each growth makes a new mapping, and an older one stays mapped until no active
/// transaction's snapshot can use it (retired like scratch pages).
/// </summary>
internal sealed unsafe class DataMap : IDisposable
{
    private readonly MemoryMappedFile _file;
    private readonly MemoryMappedViewAccessor _view;
    private readonly byte* _base;
    private readonly ulong[] _verified;
    private readonly string _path;
    private readonly Action<StorageCorruptionException>? _corrupted;

    /// <param name="corrupted">Told about every page that fails verification, before the read throws.</param>
    public DataMap(SafeFileHandle handle, string path, long pageCount, DataMap? previous, Action<StorageCorruptionException>? corrupted)
    {
        _path = path;
        _corrupted = corrupted;
        PageCount = pageCount;
        _file = MemoryMappedFile.CreateFromFile(handle, null, pageCount * PageHeader.PageSize, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        _view = _file.CreateViewAccessor(0, pageCount * PageHeader.PageSize, MemoryMappedFileAccess.Read);
        byte* p = null;
        _view.SafeMemoryMappedViewHandle.AcquirePointer(ref p);
        _base = p + _view.PointerOffset;
        _verified = new ulong[(pageCount + 63) / 64];
        if (previous != null)
        {
            Array.Copy(previous._verified, _verified, previous._verified.Length);
        }
    }

    public long PageCount { get; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* GetPage(long page)
    {
        if ((ulong)page >= (ulong)PageCount)
        {
            ThrowBeyondEnd(page);
        }

        if ((Volatile.Read(ref _verified[page >> 6]) & (1UL << (int)(page & 63))) == 0)
        {
            Verify(page);
        }

        return _base + (page << PageHeader.PageShift);
    }

    private void Verify(long page)
    {
        var p = _base + (page << PageHeader.PageShift);
        var available = (PageCount - page) * PageHeader.PageSize;
        if (!PageHeader.Verify(p, page, available))
        {
            var ex = new StorageCorruptionException($"Page {page} failed its checksum or page number check", _path, page * PageHeader.PageSize) { Page = page };
            _corrupted?.Invoke(ex);
            throw ex;
        }

        Interlocked.Or(ref _verified[page >> 6], 1UL << (int)(page & 63));
    }

    /// <summary>
    /// Records that <paramref name="page"/> holds what this process just wrote from a sealed scratch
    /// copy, so its first read skips the checksum: after a flush every page of a bulk load was being
    /// checksummed again on its next read (13% of a sorted delete's samples). Damage done to the file
    /// later is found by the next open or by <see cref="StorageEnvironment.Verify"/>.
    /// </summary>
    public void MarkVerified(long page)
    {
        if ((ulong)page < (ulong)PageCount)
        {
            Interlocked.Or(ref _verified[page >> 6], 1UL << (int)(page & 63));
        }
    }

    /// <summary>
    /// Maps <paramref name="pages"/> pages from <paramref name="page"/> (just written, so in the page cache) into the
    /// process now, on the flusher's thread: otherwise the next transaction to read them takes the faults, one per
    /// 64 KiB (a sorted delete over a flushed 1M-key load: 4.4k faults, a fifth of its CPU time).
    /// </summary>
    public void Populate(long page, long pages)
    {
        if (page >= 0 && pages > 0 && page + pages <= PageCount)
        {
            MemoryAdvice.Advise(_base + (page << PageHeader.PageShift), (nuint)(pages << PageHeader.PageShift), MemoryAdvice.PopulateRead);
        }
    }

    /// <summary>The page's bytes as they are in the file, not verified (the verifier checks them itself).</summary>
    public byte* GetPageUnverified(long page) => (ulong)page < (ulong)PageCount ? _base + (page << PageHeader.PageShift) : null;

    public string Path => _path;

    private void ThrowBeyondEnd(long page)
    {
        throw new StorageCorruptionException($"Page {page} is beyond the end of the data file ({PageCount} pages)", _path, page * PageHeader.PageSize);
    }

    public void Dispose()
    {
        _view.SafeMemoryMappedViewHandle.ReleasePointer();
        _view.Dispose();
        _file.Dispose();
    }
}
