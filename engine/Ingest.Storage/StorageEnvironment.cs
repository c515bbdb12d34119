using Ingest.Storage.Journal;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;
using Ingest.Storage.Trees;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage;

/// <summary>
/// One storage environment: a directory holding the data file, journal files and a lock file.
/// Thread-safe: one write transaction at a time (<see cref="BeginWrite"/> waits for the previous
/// one to end) and any number of read transactions, concurrently. Dispose every transaction
/// before disposing the environment.
/// </summary>
/// <remarks>
/// <para>
/// Four locks, in the order they are taken: a thread holding one only ever waits for one further down the list.
/// </para>
/// <list type="number">
/// <item><c>_writerLock</c>: the one write transaction, held from <see cref="BeginWrite"/> until the transaction ends
/// (a semaphore: not tied to a thread, so a transaction may end on another). The commit's journal write and its fsync
/// run under it and under no other lock here, so neither readers nor the flusher wait for a commit's sync.</item>
/// <item><c>_flushLock</c>: one flush at a time (the flusher thread, <c>FlushNow</c>, <see cref="Dispose"/>). The data
/// file writes and fsync, the header update and its fsync and the release of journal files run under it and under no
/// other lock here, so commits never wait for the data file. The engine never holds the two together: the flusher
/// only tries the writer lock, with <c>Wait(0)</c>, in <c>ProbeJournal</c>, before taking the flush lock; a caller of
/// <c>FlushNow</c> with a write transaction open would take them in this order.</item>
/// <item><c>_publishLock</c>: publishing a commit (its versions into the shared page table, a new <see cref="Snapshot"/>)
/// against publishing a flush (unlinking what the data file now holds), each with its epoch advance. Taken under the
/// writer lock or the flush lock, after their syncs; no IO runs under it. Readers take no lock: they claim a slot in
/// <see cref="ReaderSlots"/> with one compare-exchange and read <c>_current</c> with a volatile read.</item>
/// <item><see cref="EpochReclamation"/>'s lock: the retired versions, nodes, slot arrays and mappings. Taken under the
/// publish lock (a replaced slot array), under the writer lock (a commit's superseded versions), under the flush lock
/// (what the flush unlinked) and alone, after the writer or flush lock is released, to free what no reader needs.</item>
/// </list>
/// <para>
/// The locks of other types are leaves, never held while one of these is taken: <see cref="JournalWriter"/>'s file
/// list (under the writer or flush lock), <see cref="DataFile"/>'s header and growth locks (see there; the header's
/// under the writer lock when a commit starts a journal file, under the flush lock when a flush records its progress),
/// the page table's spare lock (under the publish or reclamation lock) and <see cref="ScratchMemory"/>'s.
/// </para>
/// <para>
/// The flusher is in StorageEnvironment.Flush.cs; bytes on disk and compaction in StorageEnvironment.Space.cs. This part stays longer than most files because opening (with
/// recovery), beginning, committing and ending transactions and closing share the fields and locks described here.
/// </para>
/// </remarks>
public sealed unsafe partial class StorageEnvironment : IDisposable
{
    private const string LockFileName = "lock";

    private readonly StorageOptions _options;
    private readonly FileStream _lockFile;
    private readonly DataFile _data;
    private readonly JournalWriter _journal;
    private readonly ReaderSlots _slots = new();
    private readonly SemaphoreSlim _writerLock = new(1, 1);
    private readonly Lock _publishLock = new();
    private readonly Lock _flushLock = new();
    private readonly EpochReclamation _reclamation;
    private readonly List<PageVersionNode> _flushUnlinked = [];
    private readonly List<PageVersion> _replaced = [];
    private readonly List<PageVersion> _flushList = [];
    private readonly List<PageVersion> _flushRemoved = []; // kept: a flush of a bulk load grew a new list to megabytes
    private readonly DirtyPageMap _dirty = new();
    private readonly Thread? _flusher;
    private readonly AutoResetEvent _flushSignal = new(false);
    private PageVersion[] _commitBuffer = new PageVersion[64];
    private Snapshot _current;
    private volatile WriteTransaction? _activeWriter;
    private int _writerThread;
    private volatile Exception? _flushError;
    private volatile DiskFullException? _journalFull;
    private volatile DiskFullException? _flushFull;
    private volatile StorageCorruptionException? _corruption;
    private volatile bool _stopping;
    private int _disposed;

    private StorageEnvironment(string directory, StorageOptions options, FileStream lockFile, DataFile data, ScratchMemory scratch, WriteFaults faults, long lastTx, long nextJournalSequence, List<string> spareJournals)
    {
        Faults = faults;
        Directory = directory;
        _options = options;
        _lockFile = lockFile;
        _data = data;
        Scratch = scratch;
        var table = new PageTable(); // every snapshot shares it (see PageTable)
        _current = new Snapshot(lastTx, table, data);
        _reclamation = new EpochReclamation(_slots, scratch, table);
        WriterBuffers = scratch.AllocatePages(2);
        var durable = options.SyncMode == SyncMode.Durable;
        _journal = new JournalWriter(
            directory, options.EffectiveInitialJournalFileSize, options.JournalFileSize, durable, scratch, nextJournalSequence, spareJournals, faults, (sequence, size) => data.RecordJournalCreated(sequence, size, durable));
        // On a full disk the environment still opens, for reads: DiskFull says why it cannot write
        // and how much it needs, and the flusher's probe makes the file once there is room.
        _journalFull = _journal.PrepareFirstFile();
        if (options.BackgroundFlush)
        {
            _flusher = new Thread(FlushLoop) { IsBackground = true, Name = "Ingest.Storage flusher" };
            _flusher.Start();
        }
    }

    /// <summary>The environment's directory.</summary>
    public string Directory { get; }

    /// <summary>The id of the last committed transaction.</summary>
    public long LastCommittedTransactionId => Volatile.Read(ref _current).TxId;

    /// <summary>
    /// Set while the disk is full: the last journal write failed with ENOSPC (commits fail with this
    /// exception until one succeeds), or the background flusher cannot write the data file (it
    /// retries every <see cref="StorageOptions.FlushInterval"/>). Null once a write succeeds again;
    /// the background flusher also retries a failed journal write's cleanup on its own, so the
    /// environment recovers without a commit or a reopen.
    /// </summary>
    public DiskFullException? DiskFull => _journalFull ?? _flushFull;

    /// <summary>The first damaged data page a read found since the environment opened, or null. Damage does not heal: reopen after repairing.</summary>
    public StorageCorruptionException? Corruption => _corruption;

    /// <summary>With <see cref="StorageOptions.AcceptJournalLoss"/>: what the open gave up because the journal was damaged, or null.</summary>
    public JournalLoss? AcceptedJournalLoss { get; private init; }

    internal ScratchMemory Scratch { get; }

    /// <summary>The test seam on file writes (makes them fail as on a full disk).</summary>
    internal WriteFaults Faults { get; }

    /// <summary>Scratch for the active write transaction's trees; one writer at a time shares it.</summary>
    internal byte* WriterBuffers { get; }

    /// <summary>The branch path of the active write transaction's current tree modification (see Tree.FindLeaf).</summary>
    internal long[] WriterTreePath { get; } = new long[Tree.MaxDepth];

    /// <summary>The child index taken at each level of <see cref="WriterTreePath"/>.</summary>
    internal int[] WriterTreePathIndex { get; } = new int[Tree.MaxDepth];

    internal DataFile Data => _data;

    internal int UnflushedPageCount => Volatile.Read(ref _current).Table.Count;

    internal int JournalFileCount => _journal.FileCount;

    /// <summary>The size the next new journal file gets (it follows the write rate).</summary>
    internal long NextJournalFileSize => _journal.NextFileSizeTarget;

    /// <summary>
    /// How many journal syncs commits have cost since the environment opened: one per durable
    /// commit, none in <see cref="SyncMode.NoSyncUnsafe"/>. Callers that merge work into shared
    /// transactions (group commit) can show what they saved.
    /// </summary>
    public long JournalSyncCount => _journal.CommitSyncs;

    /// <summary>Bytes of commit records written to the journal since the environment opened (metrics).</summary>
    public long JournalBytesWritten => _journal.BytesWritten;

    /// <summary>The data file's size on disk in bytes (it grows in steps ahead of use).</summary>
    public long DataFileBytes => new FileInfo(Path.Combine(Directory, DataFile.FileName)).Length;

    /// <summary>Committed page versions the background flusher has not written to the data file yet.</summary>
    public int FlushBacklogPages => UnflushedPageCount;

    /// <summary>Transactions open now (read transactions and the active writer's snapshot).</summary>
    public int OpenTransactionCount => _slots.ActiveCount;

    /// <summary>Set by tests: dispose closes files without flushing, as if the process died.</summary>
    internal bool SimulateCrashOnDispose { get; set; }

    /// <summary>
    /// Opens (creating if needed) the environment in <paramref name="directory"/>, replaying
    /// committed transactions the data file does not hold yet.
    /// </summary>
    /// <exception cref="IOException">Another environment has the directory open.</exception>
    /// <exception cref="StorageCorruptionException">The journal or data file is damaged.</exception>
    public static StorageEnvironment Open(string directory, StorageOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        options ??= new StorageOptions();
        options.Validate();
        System.IO.Directory.CreateDirectory(directory);
        directory = Path.GetFullPath(directory);

        var lockFile = LockDirectory(directory);
        bool building;
        try
        {
            DeleteUnfinishedCompaction(directory);
            building = PrepareBuild(directory, options);
        }
        catch
        {
            lockFile.Dispose();
            throw;
        }

        var scratch = new ScratchMemory();
        var faults = options.Faults ?? new WriteFaults();
        StorageEnvironment? opened = null;
        DataFile? data = null;
        try
        {
            data = DataFile.Open(directory, InitializeDataFile, faults, ex => opened?.RecordCorruption(ex));
            var recovery = new JournalRecovery(directory, scratch, data.Header, options.AcceptJournalLoss);
            var lastTx = data.Header.LastAppliedTx;
            var spares = new List<string>();
            var replayed = recovery.Replay(
                lastTx,
                (page, image, pages) =>
                {
                    data.EnsureCapacity(page + pages)?.Dispose(); // nothing reads the old mapping yet
                    data.WritePages(page, (byte*)image, pages);
                },
                (page, into) =>
                {
                    // Unverified: a page the flusher tore before the crash is mended by the diffs replayed over it (see PageDiff).
                    var current = data.Map.GetPageUnverified(page);
                    if (current == null)
                    {
                        return false;
                    }

                    Buffer.MemoryCopy(current, (byte*)into, PageHeader.PageSize, PageHeader.PageSize);
                    return true;
                });
            if (recovery.FileCount > 0 || data.Header.KnowsJournals)
            {
                // Every record is in the data file now, so no journal file is needed any more: the
                // header says so before files are deleted, or a missing one would look like damage.
                data.Sync();
                data.ResetJournals(replayed, recovery.NextSequence, options.EffectiveInitialJournalFileSize);
                lastTx = replayed;
                if (recovery.Loss != null)
                {
                    recovery.DeleteAll(); // their later records belong to the history given up
                }
                else
                {
                    spares = recovery.KeepSpares(options.EffectiveInitialJournalFileSize, maxSpares: 2);
                }
            }

            // Every commit stamps the state page; it outranks a header that lost its newer copy.
            lastTx = Math.Max(lastTx, StatePage.GetTxId(data.Map.GetPage(StatePage.PageNumber)));

            opened = new StorageEnvironment(directory, options, lockFile, data, scratch, faults, lastTx, recovery.NextSequence, spares)
            {
                AcceptedJournalLoss = recovery.Loss,
                _building = building,
            };
            return opened;
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex) && ex is not DiskFullException)
        {
            // Replaying the journal writes the data file: with no room for that the store cannot open at all.
            data?.Dispose();
            scratch.Dispose();
            lockFile.Dispose();
            throw new DiskFullException(directory, ex);
        }
        catch
        {
            data?.Dispose();
            scratch.Dispose();
            lockFile.Dispose();
            throw;
        }
    }

    private static void InitializeDataFile(SafeFileHandle handle)
    {
        var buffer = new byte[3 * PageHeader.PageSize];
        fixed (byte* b = buffer)
        {
            var header = new FileHeader(StatePage.PageNumber, 0, 0);
            header.Write(new Span<byte>(b, FileHeader.SlotSize));

            var state = b + PageHeader.PageSize;
            PageHeader.Initialize(state, StatePage.PageNumber, PageType.State);
            StatePage.SetRootTreePage(state, 2);
            StatePage.SetNextPage(state, 3);
            PageHeader.Seal(state);

            var root = b + (2 * PageHeader.PageSize);
            TreePage.Initialize(root, 2, isLeaf: true);
            PageHeader.Seal(root);
        }

        RandomAccess.Write(handle, buffer, 0);
    }

    /// <summary>Begins a read transaction on the last committed snapshot. Allocates nothing.</summary>
    public ReadTransaction BeginRead()
    {
        ThrowIfDisposed();
        var lower = Volatile.Read(ref _current).TxId;
        var slot = _slots.Acquire(lower, out var token);
        var snapshot = Volatile.Read(ref _current);
        return new ReadTransaction(this, snapshot, slot, token);
    }

    /// <summary>Begins the write transaction, waiting while another one is active.</summary>
    public WriteTransaction BeginWrite()
    {
        ThrowIfDisposed();
        if (_flushError is { } error)
        {
            throw new IOException("A journal write or the background flusher failed; the environment must be reopened.", error);
        }

        if (_activeWriter != null && _writerThread == Environment.CurrentManagedThreadId)
        {
            throw new InvalidOperationException("This thread already has an active write transaction; dispose it first.");
        }

        _writerLock.Wait();
        if (Volatile.Read(ref _disposed) != 0)
        {
            _writerLock.Release();
            ThrowIfDisposed();
        }

        var lower = Volatile.Read(ref _current).TxId;
        var slot = _slots.Acquire(lower, out var token);
        var snapshot = Volatile.Read(ref _current);
        var tx = new WriteTransaction(this, snapshot, slot, token, _dirty);
        // The owner first: the volatile write of _activeWriter publishes it, so a thread that sees this transaction
        // never pairs it with the previous owner's id (which made a thread that had just committed refuse its next
        // BeginWrite as nested, when another thread won the lock in between).
        _writerThread = Environment.CurrentManagedThreadId;
        _activeWriter = tx;
        return tx;
    }

    /// <summary>
    /// Checks the last committed snapshot: every reachable page's checksum, page type, key order and
    /// child pointers, that no page is reached twice, and the checksums of allocated pages no tree
    /// reaches. Runs beside readers and the writer; reports damage instead of throwing (and records
    /// the first damaged page in <see cref="Corruption"/>).
    /// </summary>
    public VerificationReport Verify()
    {
        ThrowIfDisposed();
        var slot = _slots.Acquire(Volatile.Read(ref _current).TxId, out var token);
        try
        {
            var report = new Verification.StorageVerifier(Volatile.Read(ref _current)).Run();
            if (!report.IsClean)
            {
                var first = report.Damaged[0];
                RecordCorruption(new StorageCorruptionException($"Verification found {report.Damaged.Count} damaged page(s), the first: page {first.Page}, {first.Kind}{(first.Tree is null ? string.Empty : $" of tree '{first.Tree}'")}: {first.Problem}", first.FilePath, first.Offset) { Page = first.Page });
            }

            return report;
        }
        finally
        {
            _slots.Release(slot, token);
        }
    }

    internal bool IsReaderActive(int slot, long token) => Volatile.Read(ref _disposed) == 0 && _slots.IsActive(slot, token);

    internal void ReleaseReader(int slot, long token) => _slots.Release(slot, token);

    internal void EndWrite(WriteTransaction tx, int slot, long token)
    {
        _slots.Release(slot, token);
        if (ReferenceEquals(_activeWriter, tx))
        {
            _activeWriter = null;
            _writerLock.Release();
        }

        _reclamation.FreeRetired();
    }

    /// <summary>Journals the transaction's pages, then publishes them in a new snapshot. Takes ownership of their scratch memory.</summary>
    internal void CommitPages(long txId, DirtyPageMap dirty)
    {
        if (_commitBuffer.Length < dirty.Count)
        {
            _commitBuffer = new PageVersion[(int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)dirty.Count)];
        }

        var n = 0;
        foreach (ref readonly var v in dirty.RawEntries)
        {
            if (v.Page == 0)
            {
                continue;
            }

            if (v.Pages == 1)
            {
                PageHole.Clear((byte*)v.Pointer);
            }

            PageHeader.Seal((byte*)v.Pointer);
            _commitBuffer[n++] = v;
        }

        var versions = _commitBuffer.AsSpan(0, n);
        versions.Sort(static (a, b) => a.Page.CompareTo(b.Page));
        try
        {
            // Still carrying each page's base version (it shares the TxId field), which the journal diffs against.
            // A build journals nothing: the flusher writes its pages once, and a crash discards it (see StorageEnvironment.Build.cs).
            if (!_building)
            {
                _journal.Append(txId, versions);
            }
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex))
        {
            // Nothing is published and the journal overwrites (or blanks) what reached the file, so
            // the environment stays usable: the next commit, or the flusher's retry, finds out when
            // there is space again.
            var full = ex as DiskFullException ?? new DiskFullException(Directory, ex);
            _journalFull = full;
            throw full;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // After a failed write or sync the record's fate on disk is unknown (it may still be
            // replayed), so no later transaction may build on this state: the environment must be reopened.
            _flushError = ex;
            throw;
        }

        _journalFull = null;
        foreach (ref var version in versions)
        {
            version.TxId = txId;
        }

        int tableCount;
        lock (_publishLock)
        {
            _replaced.Clear();
            var table = _current.Table;
            table.Publish(versions, _replaced);
            tableCount = table.Count;
            if (table.DetachReplaced() is { } grown)
            {
                _reclamation.RetireSlots(grown, _slots.AdvanceEpoch()); // transactions that begin later see the new array
            }

            Volatile.Write(ref _current, new Snapshot(txId, table, _data));
        }

        _reclamation.RetireSuperseded(_replaced, txId);
        // By bytes, not files: files start small and grow, and a flush per third small file cost each commit a share of
        // the flush's page table rebuild (the put-batched allocation budget went from 2.7 to 21.6 B per document).
        if (_flusher != null && (tableCount >= _options.FlushThresholdPages || _journal.HeldBytes > 2 * _options.JournalFileSize))
        {
            _flushSignal.Set();
        }
    }

    private void RecordCorruption(StorageCorruptionException ex) => Interlocked.CompareExchange(ref _corruption, ex, null);

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _stopping = true;
        _flushSignal.Set();
        _flusher?.Join();

        _activeWriter?.AbortFromEnvironment();
        _activeWriter = null;

        var flushed = false;
        try
        {
            if (!SimulateCrashOnDispose && _flushError == null)
            {
                Flush(ignoreReaders: true);

                // Every record is in the data file: no journal file is needed, so closing may delete oversized ones.
                _data.UpdateHeader(_data.Header.LastAppliedTx, _journal.NextSequence);
                flushed = true;
                if (_building)
                {
                    EndBuild(); // the data file holds every commit and is synced: a clean close finishes the build
                }
            }
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex))
        {
            // The journal keeps every committed record; the next open replays them.
        }
        finally
        {
            _journal.Close(allApplied: flushed);
            var current = _current;
            List<PageVersion> newest = [];
            current.Table.CollectNewest(newest);
            foreach (var e in newest)
            {
                Scratch.FreePages((byte*)e.Pointer, e.Pages);
            }

            _current = new Snapshot(current.TxId, new PageTable(), _data);
            _reclamation.FreeAll();

            _journal.Dispose();
            _data.Dispose();
            Scratch.FreePages(WriterBuffers, 2);
            Scratch.Dispose();
            _flushSignal.Dispose();
            _writerLock.Dispose();
            _lockFile.Dispose();
        }
    }
}
