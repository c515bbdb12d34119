using System.Runtime.InteropServices;

namespace Ingest.Storage.Paging;

/// <summary>
/// Native memory for page copies (copy-on-write scratch) and I/O buffers. Single pages are
/// pooled because commits allocate and free them at a high rate. <see cref="Outstanding"/>
/// counts live allocations so tests can prove nothing leaks.
/// </summary>
internal sealed unsafe class ScratchMemory : IDisposable
{
    private const int MaxPooledPages = 4096;
    private readonly Stack<nint> _pool = new();
    private readonly Lock _lock = new();
    private long _outstanding;

    /// <summary>Native allocations not yet returned (pooled pages count as returned).</summary>
    public long Outstanding => Interlocked.Read(ref _outstanding);

    /// <summary>Blocks obtained from the native allocator and not yet given back to it (pooled pages included).</summary>
    public long LiveBlocks => Interlocked.Read(ref _liveBlocks);

    private long _liveBlocks;

    public byte* Allocate(long bytes)
    {
        if (bytes == PageHeader.PageSize)
        {
            lock (_lock)
            {
                if (_pool.Count > 0)
                {
                    Interlocked.Increment(ref _outstanding);
                    return (byte*)_pool.Pop();
                }
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
                if (_pool.Count < MaxPooledPages)
                {
                    _pool.Push((nint)p);
                    return;
                }
            }
        }

        NativeMemory.AlignedFree(p);
        Interlocked.Decrement(ref _liveBlocks);
    }

    public void FreePages(byte* p, int pages) => Free(p, (long)pages * PageHeader.PageSize);

    public void Dispose()
    {
        lock (_lock)
        {
            while (_pool.Count > 0)
            {
                NativeMemory.AlignedFree((void*)_pool.Pop());
                Interlocked.Decrement(ref _liveBlocks);
            }
        }
    }
}
