using System.Diagnostics;
using System.Text;
using Ingest.Documents;
using Ingest.Indexing.Storage;
using Ingest.Storage;
using Microsoft.Extensions.Logging;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// The indexer of one build of an index (its <see cref="IndexStorage"/>; an <see cref="IndexSet"/> runs one per current
/// build and one per side-by-side rebuild): a background loop that reads the document store's changes feed from the
/// index's last indexed etag, fills a reused <see cref="IndexBatch"/> until the feed (one snapshot) is exhausted, the batch's memory budget is used or
/// <see cref="IndexingOptions.MaxBatchDuration"/> has passed, applies it in one transaction, reports the etag as the
/// store consumer's progress and releases the waiters it passed; then waits for the next commit of the store (no
/// polling). A document of another collection, or a tombstone, is a delete when the index holds that id.
/// <para>
/// Per change the feed hands out spans into the store's pages; the loop allocates the document id string (an
/// <see cref="IndexChange"/> holds it) and nothing else once the batch buffers have grown.
/// </para>
/// Damaged storage (a <see cref="StorageCorruptionException"/>) stops the loop and marks the indexer errored.
/// </summary>
internal sealed class Indexer : IAsyncDisposable
{
    // Bytes a string of n UTF-16 chars takes on the heap, beyond 2n: object header, method table, length, terminator.
    internal const int StringOverheadBytes = 22;

    // How often an index whose disk is full tries to write again (the storage's flusher probes as often).
    private static readonly TimeSpan DiskFullRetryInterval = TimeSpan.FromSeconds(1);

    private readonly DocumentStore _store;
    private readonly IndexStorage _storage;
    private readonly IndexingOptions _options;
    private readonly ILogger _logger;
    private readonly byte[][] _collections;
    private readonly string[] _collectionNames;
    private readonly IndexBatch _batch;
    private CancellationTokenSource _stop = new();
    private readonly Lock _lock = new();
    private readonly List<(long Etag, TaskCompletionSource<bool> Waiter)> _waiters = [];
    private readonly TaskCompletionSource _retired = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly SemaphoreSlim _reportGate = new(1, 1);
    private string _consumerName;
    private Task _loop = Task.CompletedTask;
    private long _lastIndexedEtag;
    private long _batchesClosed;
    private long _lastBatchDocuments;
    private long _peakBatchMemory;
    private long _lastBatchTicks;
    private int _readers;
    private bool _retiring;
    private bool _storageDisposed;
    private string? _error;
    private string? _diskFull;

    public Indexer(DocumentStore store, IndexStorage storage, string consumerName, IndexingOptions options, ILogger logger)
    {
        _store = store;
        _storage = storage;
        _consumerName = consumerName;
        _options = options;
        _logger = logger;
        _collectionNames = [.. storage.Definition.Collections];
        _collections = new byte[_collectionNames.Length][];
        for (var i = 0; i < _collectionNames.Length; i++)
        {
            _collections[i] = Encoding.UTF8.GetBytes(_collectionNames[i]);
        }

        _batch = storage.CreateBatch();
        _lastIndexedEtag = storage.LastIndexedEtag;
    }

    /// <summary>Raised on the loop's thread after each commit, with the committed etag.</summary>
    public event Action<Indexer, long>? Committed;

    /// <summary>The document-store consumer this indexer reports its progress as.</summary>
    public string ConsumerName => Volatile.Read(ref _consumerName);

    public IndexStorage Storage => _storage;

    public long LastIndexedEtag => Volatile.Read(ref _lastIndexedEtag);

    public string? Error => Volatile.Read(ref _error);

    /// <summary>Why the index cannot write now (its disk is full), or null; it retries by itself and clears this once a batch is written.</summary>
    public string? DiskFull => Volatile.Read(ref _diskFull);

    public long BatchesClosed => Volatile.Read(ref _batchesClosed);

    public long LastBatchDocuments => Volatile.Read(ref _lastBatchDocuments);

    public long PeakBatchMemoryBytes => Volatile.Read(ref _peakBatchMemory);

    public DateTime? LastBatchAt => Volatile.Read(ref _lastBatchTicks) is var ticks and > 0 ? new DateTime(ticks, DateTimeKind.Utc) : null;

    /// <summary>The highest last etag over the definition's collections, from the store's counters.</summary>
    public long CollectionsLastEtag()
    {
        long last = 0;

        // The reader's counters only: DocumentStore.GetStats also sizes the store's files, racing with journal deletion.
        using var reader = _store.BeginRead();
        foreach (var collection in reader.GetStats().Collections)
        {
            foreach (var name in _collectionNames)
            {
                if (string.Equals(name, collection.Name, StringComparison.OrdinalIgnoreCase))
                {
                    last = Math.Max(last, collection.LastEtag);
                }
            }
        }

        return last;
    }

    /// <summary>Logs and counts an index that is errored before it runs (its storage could not be opened), as a failed batch is.</summary>
    public static void RecordOpenError(ILogger logger, string index, Exception error)
    {
        Log.IndexErrored(logger, index, error.Message, error);
        IndexingTelemetry.RecordError(index);
    }

    /// <summary>Starts the loop (again, after <see cref="StopAsync"/>).</summary>
    public void Start()
    {
        if (_stop.IsCancellationRequested)
        {
            _stop.Dispose();
            _stop = new CancellationTokenSource();
        }

        _loop = Task.Run(RunAsync);
    }

    /// <summary>Stops the loop after its current batch; the storage stays open for readers.</summary>
    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await _loop.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Stopping.
        }
    }

    /// <summary>
    /// Moves the progress to consumer <paramref name="name"/> (a side-by-side build becoming the index): registers it,
    /// reports this indexer's etag, then unregisters the old name, so no tombstone this indexer has not passed can be
    /// purged in between. Serialized with the loop's own reports.
    /// </summary>
    public async Task RenameConsumerAsync(string name)
    {
        await _reportGate.WaitAsync().ConfigureAwait(false);
        try
        {
            var old = ConsumerName;
            await _store.RegisterConsumerAsync(name).ConfigureAwait(false);
            await _store.ReportProgressAsync(name, LastIndexedEtag).ConfigureAwait(false);
            Volatile.Write(ref _consumerName, name);
            await _store.UnregisterConsumerAsync(old).ConfigureAwait(false);
        }
        finally
        {
            _reportGate.Release();
        }
    }

    /// <summary>A reader of the committed index; null once the indexer is retired (swapped out or deleted).</summary>
    public IndexReader? BeginRead()
    {
        lock (_lock)
        {
            if (_retiring || Error != null)
            {
                return null;
            }

            _readers++;
        }

        try
        {
            return _storage.BeginRead(ReleaseReader);
        }
        catch
        {
            ReleaseReader();
            throw;
        }
    }

    /// <summary>True once the index committed <paramref name="etag"/> or later; false on timeout, error or stop.</summary>
    public async Task<bool> WaitForEtagAsync(long etag, TimeSpan timeout, CancellationToken ct)
    {
        TaskCompletionSource<bool> waiter;
        lock (_lock)
        {
            if (LastIndexedEtag >= etag)
            {
                return true;
            }

            if (Error != null || _retiring)
            {
                return false;
            }

            waiter = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((etag, waiter));
        }

        try
        {
            return await waiter.Task.WaitAsync(timeout, ct).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return false;
        }
        finally
        {
            lock (_lock)
            {
                var i = _waiters.FindIndex(w => w.Waiter == waiter);
                if (i >= 0)
                {
                    _waiters.RemoveAt(i);
                }
            }
        }
    }

    /// <summary>Stops the loop, waits for it, releases waiters, and disposes the storage once no reader holds it.</summary>
    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        bool disposeNow;
        lock (_lock)
        {
            _retiring = true;
            disposeNow = _readers == 0;
            ReleaseWaiters(releaseAll: true);
        }

        if (disposeNow)
        {
            DisposeStorage();
        }

        await _retired.Task.ConfigureAwait(false);
        _stop.Dispose();
        _reportGate.Dispose();
    }

    private async Task RunAsync()
    {
        var ct = _stop.Token;
        while (!await RunUntilDiskFullAsync(ct).ConfigureAwait(false))
        {
            try
            {
                await Task.Delay(DiskFullRetryInterval, ct).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>Indexes until stopped or failed (true), or until the disk is full (false: the caller waits, then runs it again).</summary>
    private async Task<bool> RunUntilDiskFullAsync(CancellationToken ct)
    {
        try
        {
            await _store.RegisterConsumerAsync(ConsumerName).ConfigureAwait(false);
            if (LastIndexedEtag > 0)
            {
                await ReportProgressAsync().ConfigureAwait(false);
            }

            while (!ct.IsCancellationRequested)
            {
                if (_store.LastEtag <= LastIndexedEtag)
                {
                    await _store.WaitForChangesAsync(LastIndexedEtag, ct).ConfigureAwait(false);
                }

                if (!IndexOneBatch(ct))
                {
                    continue;
                }

                Volatile.Write(ref _diskFull, null);

                await ReportProgressAsync().ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            // Stopping.
        }
        catch (ObjectDisposedException) when (ct.IsCancellationRequested)
        {
            // The store closed under a stopping loop.
        }
        catch (Exception ex) when (ex is StorageCorruptionException or InvalidDataException)
        {
            Fail(ex);
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex) && !ct.IsCancellationRequested)
        {
            // A full disk is not damage: nothing of the failed batch was written, and the index goes on once
            // there is room (the store's own writes wait the same way). Until then it is stale, and says why.
            if (Interlocked.Exchange(ref _diskFull, ex.Message) is null)
            {
                Log.IndexWaitingForSpace(_logger, _storage.Definition.Name, ex.Message);
            }

            return false;
        }
        catch (Exception ex) when (!ct.IsCancellationRequested)
        {
            // Anything else unexpected also stops this index (and only this one) with a visible error.
            Fail(ex);
        }

        return true;
    }

    private async Task ReportProgressAsync()
    {
        await _reportGate.WaitAsync().ConfigureAwait(false);
        try
        {
            await _store.ReportProgressAsync(ConsumerName, LastIndexedEtag).ConfigureAwait(false);
        }
        finally
        {
            _reportGate.Release();
        }
    }

    private void Fail(Exception error)
    {
        Log.IndexErrored(_logger, _storage.Definition.Name, error.Message, error);
        IndexingTelemetry.RecordError(_storage.Definition.Name);
        lock (_lock)
        {
            Volatile.Write(ref _error, error.Message);
            ReleaseWaiters(releaseAll: true);
        }
    }

    /// <summary>Fills and applies one batch; false when the feed had nothing after the last indexed etag.</summary>
    private bool IndexOneBatch(CancellationToken ct)
    {
        var budget = _options.BatchMemoryBudgetBytes;
        var cap = _options.MaxBatchDocuments ?? int.MaxValue;
        var deadline = Stopwatch.GetTimestamp() + (long)(_options.MaxBatchDuration.TotalSeconds * Stopwatch.Frequency);
        var from = LastIndexedEtag;
        var through = from;
        long idBytes = 0;
        bool exhausted;
        _batch.Clear();
        using (var reader = _store.BeginRead())
        using (var index = _storage.BeginRead())
        {
            // Exhausting the snapshot means every etag up to its last one was seen: changes whose records are gone
            // (purged tombstones) have no entry in the feed, and the index must not wait for them.
            exhausted = true;
            foreach (var change in reader.GetChangesSince(from))
            {
                through = change.Etag;
                if (!change.IsDeleted && IsIndexed(change.CollectionUtf8))
                {
                    var id = change.Id;
                    idBytes += StringOverheadBytes + (2L * id.Length);
                    _batch.Put(id, change.Etag, change.Body);
                }
                else if (index.ContainsDocument(change.IdUtf8))
                {
                    var id = change.Id;
                    idBytes += StringOverheadBytes + (2L * id.Length);
                    _batch.Delete(id, change.Etag);
                }

                if (_batch.Count >= cap
                    || EstimateBatchMemory(_batch, idBytes) >= budget
                    || Stopwatch.GetTimestamp() >= deadline
                    || ct.IsCancellationRequested)
                {
                    exhausted = false;
                    break;
                }
            }

            if (exhausted)
            {
                through = Math.Max(through, reader.LastEtag);
            }
        }

        if (through == from)
        {
            return false;
        }

        using (IndexingTelemetry.StartBatch(_storage.Definition.Name, _batch.Count, from, through))
        {
            _storage.Apply(_batch, through);
        }

        // A new build (or side-by-side rebuild) is unjournaled until it caught up with the store: then its pages are
        // written out once and synced, before the waiters hear of the etag, and later batches are journaled.
        if (exhausted && _storage.IsBuilding)
        {
            _storage.TryFinishBuild();
        }

        IndexingTelemetry.RecordBatch(_storage.Definition.Name, _batch.Count);
        var memory = _batch.CapacityBytes + _storage.WorkMemoryBytes + idBytes;
        Volatile.Write(ref _lastBatchDocuments, _batch.Count);
        Volatile.Write(ref _peakBatchMemory, Math.Max(_peakBatchMemory, memory));
        Volatile.Write(ref _lastBatchTicks, DateTime.UtcNow.Ticks);
        Interlocked.Increment(ref _batchesClosed);
        Log.BatchCommitted(_logger, _storage.Definition.Name, _batch.Count, through, memory);
        _batch.Clear();
        lock (_lock)
        {
            Volatile.Write(ref _lastIndexedEtag, through);
            ReleaseWaiters(releaseAll: false);
        }

        Committed?.Invoke(this, through);
        return true;
    }

    /// <summary>
    /// The memory a batch will need by the time it is applied, for closing it under the budget: the batch's arrays
    /// double when they grow, and applying it holds its terms copied into the arena and twice (new and old) as posting
    /// ops, so twice (used + apply work), plus the id strings (<paramref name="idBytes"/>).
    /// </summary>
    internal static long EstimateBatchMemory(IndexBatch batch, long idBytes) =>
        (2 * (batch.UsedBytes + (2L * batch.Terms.ByteCount) + (batch.Terms.Count * 2L * 24) + (batch.Count * 32L))) + idBytes;

    private bool IsIndexed(ReadOnlySpan<byte> collection)
    {
        foreach (var name in _collections)
        {
            if (collection.SequenceEqual(name) || System.Text.Ascii.EqualsIgnoreCase(collection, name))
            {
                return true;
            }
        }

        // Non-ASCII names that differ only in case: compare as strings (rare, allocates).
        if (System.Text.Ascii.IsValid(collection))
        {
            return false;
        }

        var text = Encoding.UTF8.GetString(collection);
        foreach (var name in _collectionNames)
        {
            if (string.Equals(text, name, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Under <see cref="_lock"/>.</summary>
    private void ReleaseWaiters(bool releaseAll)
    {
        var last = LastIndexedEtag;
        for (var i = _waiters.Count - 1; i >= 0; i--)
        {
            var (etag, waiter) = _waiters[i];
            if (etag <= last || releaseAll)
            {
                waiter.TrySetResult(etag <= last);
                _waiters.RemoveAt(i);
            }
        }
    }

    private void ReleaseReader()
    {
        bool disposeNow;
        lock (_lock)
        {
            _readers--;
            disposeNow = _retiring && _readers == 0;
        }

        if (disposeNow)
        {
            DisposeStorage();
        }
    }

    private void DisposeStorage()
    {
        lock (_lock)
        {
            if (_storageDisposed)
            {
                return;
            }

            _storageDisposed = true;
        }

        _batch.Dispose();
        _storage.Dispose();
        _retired.TrySetResult();
    }
}
