using System.Runtime.InteropServices;

namespace Ingest.Storage.Paging;

/// <summary>
/// Native memory for page copies (copy-on-write scratch) and I/O buffers. <see cref="Outstanding"/>
/// counts live allocations so tests can prove nothing leaks.
/// <para>
/// Single pages, which commits allocate and free at a high rate, are carved from 2 MiB chunks
/// (transparent huge pages where the kernel offers them) and recycled through a pool, never handed
/// back one by one. A profile of a 500k-key sorted delete spent 98% of its time getting fresh pages:
/// one <c>posix_memalign</c> each, then first-touch page faults on the copy, which cost far more in a
/// VM than the copy itself. A chunk faults in once. Pooled pages beyond <see cref="DefaultWarmPages"/> give
/// their memory back to the kernel (the address stays reserved), so a burst does not pin its
/// high-water mark of resident memory. When the writer starts carving a new chunk, the next one is faulted in
/// (zeroed by the kernel) on a thread-pool thread, so a burst such as a bulk load does not zero its memory on the
/// writer's thread.
/// </para>
/// </summary>
internal sealed unsafe class ScratchMemory : IDisposable
{
    private const int ChunkBytes = 2 * 1024 * 1024;

    /// <summary>Pooled pages kept resident by default (256 MiB); the memory of pages freed beyond this is released with MADV_DONTNEED.</summary>
    public const int DefaultWarmPages = 32 * 1024;

    private readonly int _warmPages;

    // Resident pages, handed out first; released pages (MADV_DONTNEED) fault in again on first touch, so they are
    // used only when no resident page is left. Mixing them in one stack made every small commit after a burst
    // fault in its pages one by one: batched-durable ran at half speed after a bulk load.
    private readonly Stack<nint> _warm = new();
    private readonly Stack<nint> _released = new();

    // Pages freed past the warm limit inside FreeBatch: still resident (handed out after the warm ones), given back to the
    // kernel when the batch ends, sorted so that neighbours in a chunk go in one madvise. One MADV_DONTNEED per page cost
    // a TLB shootdown to every core running the process, readers included, each (3,378 of them in one flush).
    private readonly List<nint> _releasing = [];
    private int _batchDepth;
    private readonly List<nint> _chunks = [];
    private readonly Lock _lock = new();
    private readonly bool _prefault;
    private byte* _carve;
    private int _carveLeft;

    // The next chunk, faulted in on a pool thread while the writer carves the current one (null: none ready).
    private byte* _ready;
    private bool _preparing;
    private bool _disposed;
    private long _outstanding;
    private long _liveBlocks;

    /// <param name="warmPages">Pooled pages kept resident.</param>
    /// <param name="prefault">
    /// Fault the next chunk in on a thread-pool thread once the writer starts carving a new one. The kernel zeroes
    /// fresh memory on first touch, and in this VM that was a third of a bulk load's writer time
    /// (<c>clear_page_erms</c> under the page splits, 650-860 ms system time for 35k pages).
    /// </param>
    public ScratchMemory(int warmPages = DefaultWarmPages, bool prefault = true)
    {
        _warmPages = warmPages;
        _prefault = prefault && OperatingSystem.IsLinux();
    }

    /// <summary>Native allocations not yet returned (pooled pages count as returned).</summary>
    public long Outstanding => Interlocked.Read(ref _outstanding);

    /// <summary>Single pages handed out that were never used before (their first touch faults them in): a diagnostic for benchmarks.</summary>
    public long FreshPages { get; private set; }

    /// <summary>Single pages handed out from the released pool (MADV_DONTNEED: their first touch faults them in again).</summary>
    public long ReleasedPagesReused { get; private set; }

    /// <summary>The chunk faulted in ahead for the next carve, or 0 (tests).</summary>
    public nint ReadyChunk
    {
        get
        {
            lock (_lock)
            {
                return (nint)_ready;
            }
        }
    }

    /// <summary>Blocks obtained from the native allocator and not yet given back to it (chunks count once).</summary>
    public long LiveBlocks => Interlocked.Read(ref _liveBlocks);

    public byte* Allocate(long bytes)
    {
        if (bytes == PageHeader.PageSize)
        {
            lock (_lock)
            {
                Interlocked.Increment(ref _outstanding);
                if (_warm.Count > 0)
                {
                    return (byte*)_warm.Pop();
                }

                if (_releasing.Count > 0)
                {
                    var resident = _releasing[^1];
                    _releasing.RemoveAt(_releasing.Count - 1);
                    return (byte*)resident;
                }

                if (_released.Count > 0)
                {
                    ReleasedPagesReused++;
                    return (byte*)_released.Pop();
                }

                if (_carveLeft == 0)
                {
                    _carve = NewChunk();
                    _carveLeft = ChunkBytes / PageHeader.PageSize;
                }

                FreshPages++;
                var page = _carve;
                _carve += PageHeader.PageSize;
                _carveLeft--;
                return page;
            }
        }

        var p = (byte*)NativeMemory.AlignedAlloc((nuint)bytes, 4096);
        Interlocked.Increment(ref _outstanding);
        Interlocked.Increment(ref _liveBlocks);
        return p;
    }

    public byte* AllocatePages(int pages) => Allocate((long)pages * PageHeader.PageSize);

    public void Free(byte* p, long bytes)
    {
        Interlocked.Decrement(ref _outstanding);
        if (bytes == PageHeader.PageSize)
        {
            lock (_lock)
            {
                if (_warm.Count < _warmPages)
                {
                    _warm.Push((nint)p);
                }
                else if (_batchDepth > 0)
                {
                    _releasing.Add((nint)p);
                }
                else
                {
                    Release(p, PageHeader.PageSize);
                    _released.Push((nint)p);
                }
            }

            return;
        }

        NativeMemory.AlignedFree(p);
        Interlocked.Decrement(ref _liveBlocks);
    }

    public void FreePages(byte* p, int pages) => Free(p, (long)pages * PageHeader.PageSize);

    /// <summary>
    /// Starts a batch of frees: single pages past the warm limit are released when the batch ends (<see cref="EndFreeBatch"/>),
    /// a run of neighbouring pages with one call, instead of one call each.
    /// </summary>
    public void BeginFreeBatch()
    {
        lock (_lock)
        {
            _batchDepth++;
        }
    }

    /// <summary>Ends a batch of frees begun with <see cref="BeginFreeBatch"/>; the last one releases what it held back.</summary>
    public void EndFreeBatch()
    {
        lock (_lock)
        {
            if (--_batchDepth > 0 || _releasing.Count == 0)
            {
                return;
            }

            _releasing.Sort();
            var start = 0;
            for (var i = 1; i <= _releasing.Count; i++)
            {
                if (i == _releasing.Count || _releasing[i] != _releasing[i - 1] + PageHeader.PageSize)
                {
                    Release((byte*)_releasing[start], (i - start) * PageHeader.PageSize);
                    start = i;
                }
            }

            foreach (var page in _releasing)
            {
                _released.Push(page);
            }

            _releasing.Clear();
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true; // a chunk still being prepared is freed by its preparer
            if (_ready != null)
            {
                NativeMemory.AlignedFree(_ready);
                _ready = null;
            }

            _warm.Clear();
            _released.Clear();
            _releasing.Clear();
            foreach (var chunk in _chunks)
            {
                NativeMemory.AlignedFree((void*)chunk);
                Interlocked.Decrement(ref _liveBlocks);
            }

            _chunks.Clear();
            _carve = null;
            _carveLeft = 0;
        }
    }

    /// <summary>Caller holds the lock.</summary>
    private byte* NewChunk()
    {
        var chunk = _ready;
        _ready = null;
        if (chunk == null)
        {
            chunk = AllocateChunk();
        }

        _chunks.Add((nint)chunk);
        Interlocked.Increment(ref _liveBlocks);
        if (_prefault && !_preparing)
        {
            // One burst needs the next chunk soon; a steady state never gets here (its pages come from the pool).
            _preparing = true;
            ThreadPool.UnsafeQueueUserWorkItem(static s => s.Prepare(), this, preferLocal: false);
        }

        return chunk;
    }

    private static byte* AllocateChunk()
    {
        var chunk = (byte*)NativeMemory.AlignedAlloc(ChunkBytes, ChunkBytes);
        // A hint: with THP in "madvise" mode the chunk faults in as one huge page.
        MemoryAdvice.Advise(chunk, ChunkBytes, MemoryAdvice.HugePage);
        return chunk;
    }

    private void Prepare()
    {
        var chunk = AllocateChunk();
        MemoryAdvice.Advise(chunk, ChunkBytes, MemoryAdvice.PopulateWrite);
        lock (_lock)
        {
            _preparing = false;
            if (!_disposed && _ready == null)
            {
                _ready = chunk;
                return;
            }
        }

        NativeMemory.AlignedFree(chunk);
    }

    private static void Release(byte* page, int bytes)
    {
        // The page reads as zeros when next touched; scratch pages are always overwritten before use.
        MemoryAdvice.Advise(page, (nuint)bytes, MemoryAdvice.DontNeed);
    }
}
