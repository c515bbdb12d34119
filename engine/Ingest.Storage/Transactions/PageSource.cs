using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Transactions;

/// <summary>How a tree reaches pages: through the write transaction (its own changes first) or a read snapshot.</summary>
internal readonly unsafe struct PageSource
{
    private readonly WriteTransaction? _write;
    private readonly Snapshot _snapshot;
    private readonly StorageEnvironment _env;
    private readonly int _slot;
    private readonly long _token;

    public PageSource(WriteTransaction write)
    {
        _write = write;
        _snapshot = write.BaseSnapshot;
        _env = write.Environment;
        _slot = -1;
        _token = 0;
    }

    public PageSource(StorageEnvironment env, Snapshot snapshot, int slot, long token)
    {
        _write = null;
        _snapshot = snapshot;
        _env = env;
        _slot = slot;
        _token = token;
    }

    public bool IsWritable => _write != null;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* Read(long page) => _write != null ? _write.GetPage(page) : _snapshot.GetPage(page);

    /// <summary>The page's bytes as <see cref="Read"/> would find them, unverified (see <see cref="Snapshot.GetPageUnverified"/>): only to prefetch.</summary>
    public byte* Peek(long page) => _write != null ? _write.PeekPage(page) : _snapshot.GetPageUnverified(page);

    /// <summary>Counts a root-to-leaf search in the write transaction's <see cref="TransactionCounters"/> (reads are not counted).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void CountDescent() => _write?.CountDescent();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void EnsureActive()
    {
        if (_write != null)
        {
            _write.EnsureActive();
        }
        else if (!_env.IsReaderActive(_slot, _token))
        {
            ThrowDisposed();
        }
    }

    public WriteTransaction Writer => _write ?? throw new InvalidOperationException("The tree was opened by a read transaction and cannot be modified.");

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(ReadTransaction));
}
