using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Storage;
using Microsoft.Extensions.Logging;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// Owns every index of one <see cref="DocumentStore"/>, in <c>indexesDirectory</c>: one directory per build
/// (<see cref="IndexDirectoryName"/>: <c>&lt;escaped name&gt;.&lt;generation&gt;</c>, each its own storage environment
/// with the definition in its meta tree) and the <see cref="IndexCatalog"/> naming the current and pending generation
/// of each index. One <see cref="Indexer"/> loop per build.
/// <para>
/// A changed definition or a reset builds a new generation side by side (queries keep reading the current one) and
/// swaps it in once it has indexed at least as far as the current one: the catalog is rewritten atomically, then the
/// old directory deleted. On open, directories the catalog does not name (an unfinished create, a swapped-out or
/// deleted build whose removal a crash interrupted) are deleted, a pending build resumes where it stopped, and
/// consumers of indexes that no longer exist are unregistered.
/// </para>
/// Store consumers: <c>index/&lt;name&gt;</c> for the current build, <c>index/&lt;name&gt;@rebuild</c> for a pending one
/// ('@' is never in an index name).
/// </summary>
public sealed class IndexSet : IAsyncDisposable
{
    private const string ConsumerPrefix = "index/";
    private const string RebuildSuffix = "@rebuild";

    private readonly DocumentStore _store;
    private readonly string _directory;
    private readonly IndexingOptions _options;
    private readonly ILoggerFactory _loggerFactory;
    private readonly ILogger _logger;
    // Lock order: _gate, then _lock; never the reverse.
    // - _gate (async, held across awaits and file I/O) serializes every change to the set of builds: put, delete,
    //   reset, swap, backup snapshot and dispose, and so every catalog write (the catalog names what _gate last left).
    // - _lock (short, never held across an await or I/O) guards _slots, the fields of each IndexSlot and _retiring,
    //   so readers (GetStatus, BeginRead, WaitForIndexedEtagAsync, the indexers' Committed events) take only _lock
    //   and never wait for a rebuild or a catalog write.
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly Lock _lock = new();
    private readonly Dictionary<string, IndexSlot> _slots = new(StringComparer.Ordinal);
    private readonly List<Task> _retiring = [];
    private bool _disposed;

    private IndexSet(DocumentStore store, string directory, IndexingOptions options, ILoggerFactory loggerFactory)
    {
        _store = store;
        _directory = directory;
        _options = options;
        _loggerFactory = loggerFactory;
        _logger = loggerFactory.CreateLogger<IndexSet>();
    }

    /// <summary>Opens the indexes in <paramref name="indexesDirectory"/> (created if missing) and starts their loops.</summary>
    public static async Task<IndexSet> OpenAsync(DocumentStore store, string indexesDirectory, IndexingOptions options, ILoggerFactory loggerFactory, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentException.ThrowIfNullOrEmpty(indexesDirectory);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(loggerFactory);
        options.Validate();
        Directory.CreateDirectory(indexesDirectory);
        var set = new IndexSet(store, Path.GetFullPath(indexesDirectory), options, loggerFactory);
        await set.LoadAsync(ct).ConfigureAwait(false);
        return set;
    }

    /// <summary>
    /// Stores <paramref name="definition"/>: a new index is created durably before this returns; the same definition
    /// changes nothing; a changed one is built side by side and swapped in when caught up.
    /// </summary>
    /// <exception cref="IndexDefinitionException">The definition is invalid; nothing was stored.</exception>
    public async Task<IndexPutOutcome> PutAsync(IndexDefinition definition, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(definition);
        var errors = IndexDefinitionValidator.Validate(definition);
        if (errors.Count > 0)
        {
            throw new IndexDefinitionException(definition.Name, errors);
        }

        await _gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var slot = Find(definition.Name);
            if (slot == null)
            {
                var generation = NextGeneration(definition.Name);
                var storage = IndexStorage.Open(BuildDirectory(definition.Name, generation), definition);
                slot = new IndexSlot(definition.Name, generation, definition);
                slot.Current = NewIndexer(storage, ConsumerOf(definition.Name));
                lock (_lock)
                {
                    _slots.Add(definition.Name, slot);
                }

                try
                {
                    WriteCatalog();
                }
                catch
                {
                    lock (_lock)
                    {
                        _slots.Remove(definition.Name);
                    }

                    await slot.Current.DisposeAsync().ConfigureAwait(false);
                    Directory.Delete(storage.Directory, recursive: true);
                    throw;
                }

                slot.Current.Start();
                return IndexPutOutcome.Created;
            }

            if (slot.Pending != null && definition.Equals(slot.PendingDefinition))
            {
                return IndexPutOutcome.Rebuilding;
            }

            if (definition.Equals(slot.Definition))
            {
                if (slot.Pending == null)
                {
                    return IndexPutOutcome.Unchanged;
                }

                await DropPendingAsync(slot).ConfigureAwait(false);
                return IndexPutOutcome.Unchanged;
            }

            await StartRebuildAsync(slot, definition).ConfigureAwait(false);
            return IndexPutOutcome.Rebuilding;
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Deletes an index: stops its loops, removes it from the catalog, unregisters its consumers, deletes its directories.</summary>
    public Task<bool> DeleteAsync(string name, CancellationToken ct = default) => WithIndexAsync(name, ct, async slot =>
    {
        lock (_lock)
        {
            _slots.Remove(name);
        }

        WriteCatalog();
        await DropPendingAsync(slot, writeCatalog: false).ConfigureAwait(false);
        if (slot.Current != null)
        {
            await slot.Current.DisposeAsync().ConfigureAwait(false);
        }

        await _store.UnregisterConsumerAsync(ConsumerOf(name)).ConfigureAwait(false);
        DeleteDirectory(BuildDirectory(name, slot.Generation));
    });

    /// <summary>Rebuilds the index from etag 0 side by side; queries use the current build until the new one caught up.</summary>
    public Task<bool> ResetAsync(string name, CancellationToken ct = default) => WithIndexAsync(name, ct, slot =>
        StartRebuildAsync(slot, slot.PendingDefinition ?? slot.Definition));

    public IReadOnlyList<IndexStatus> GetStatuses()
    {
        IndexSlot[] slots;
        lock (_lock)
        {
            slots = [.. _slots.Values];
        }

        var result = new List<IndexStatus>(slots.Length);
        foreach (var slot in slots.OrderBy(s => s.Name, StringComparer.Ordinal))
        {
            result.Add(StatusOf(slot));
        }

        return result;
    }

    /// <summary>
    /// Each index's bytes on disk by name, a side-by-side build's added to its index's: file sizes and a read of each
    /// state page, for <c>/stats</c> and not for query paths. An index with no open build (errored at open) is left out.
    /// </summary>
    public IReadOnlyDictionary<string, StorageSpace> GetSpaces()
    {
        List<(string Name, Indexer? Current, Indexer? Pending)> builds;
        lock (_lock)
        {
            builds = [.. _slots.Values.Select(s => (s.Name, s.Current, s.Pending))];
        }

        var spaces = new Dictionary<string, StorageSpace>(StringComparer.Ordinal);
        foreach (var (name, current, pending) in builds)
        {
            var space = SpaceOf(current);
            if (SpaceOf(pending) is { } side)
            {
                space = space == null ? side : space with
                {
                    DataFileBytes = space.DataFileBytes + side.DataFileBytes,
                    JournalBytes = space.JournalBytes + side.JournalBytes,
                    FreePageBytes = space.FreePageBytes + side.FreePageBytes,
                };
            }

            if (space != null)
            {
                spaces[name] = space;
            }
        }

        return spaces;
    }

    private static StorageSpace? SpaceOf(Indexer? indexer)
    {
        try
        {
            return indexer?.Storage.GetSpace();
        }
        catch (Exception ex) when (ex is ObjectDisposedException or IOException)
        {
            return null; // dropped or swapped out while this ran
        }
    }

    public IndexStatus? GetStatus(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        var slot = Find(name);
        return slot == null ? null : StatusOf(slot);
    }

    /// <summary>True when the index (its current build) committed <paramref name="etag"/> before the timeout; no polling.</summary>
    public Task<bool> WaitForIndexedEtagAsync(string name, long etag, TimeSpan timeout, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(name);
        var indexer = Find(name)?.Current;
        return indexer == null ? Task.FromResult(false) : indexer.WaitForEtagAsync(etag, timeout, ct);
    }

    /// <summary>A consistent reader of the current build; null when the index is unknown or errored. Dispose it promptly.</summary>
    public IndexReader? BeginRead(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return Find(name)?.Current?.BeginRead();
    }

    /// <summary>
    /// Snapshots the store and every index build together, for a backup: under the gate (no index is created,
    /// swapped or deleted meanwhile, so the catalog names exactly these builds) and while no store write can commit
    /// (see <see cref="DocumentStore.BeginReadWhileWritesPausedAsync"/>), so no index is ahead of the store and the
    /// store records no index further along than its snapshot. Opening the snapshots takes microseconds; copying
    /// them happens after, beside ingestion and indexing. An index build that failed to open is left out (restored,
    /// it is rebuilt from the documents).
    /// </summary>
    public async Task<IndexedStoreSnapshot> BeginBackupAsync(CancellationToken ct = default)
    {
        await _gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var catalogPath = Path.Combine(_directory, IndexCatalog.FileName);
            var catalog = File.Exists(catalogPath) ? await File.ReadAllBytesAsync(catalogPath, ct).ConfigureAwait(false) : null;
            IndexSlot[] slots;
            lock (_lock)
            {
                slots = [.. _slots.Values.OrderBy(s => s.Name, StringComparer.Ordinal)];
            }

            return await _store.BeginReadWhileWritesPausedAsync(store =>
            {
                var snapshot = new IndexedStoreSnapshot(store, catalog);
                try
                {
                    foreach (var slot in slots)
                    {
                        AddBuild(snapshot, slot.Name, slot.Generation, slot.Current);
                        if (slot.PendingGeneration is { } pending)
                        {
                            AddBuild(snapshot, slot.Name, pending, slot.Pending);
                        }
                    }
                }
                catch
                {
                    snapshot.Dispose();
                    throw;
                }

                return snapshot;
            }).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }

        static void AddBuild(IndexedStoreSnapshot snapshot, string name, long generation, Indexer? indexer)
        {
            if (indexer?.BeginRead() is { } reader)
            {
                snapshot.Indexes.Add((IndexDirectoryName.Of(name, generation), reader));
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            IndexSlot[] slots;
            lock (_lock)
            {
                slots = [.. _slots.Values];
            }

            foreach (var slot in slots)
            {
                if (slot.Pending != null)
                {
                    await slot.Pending.DisposeAsync().ConfigureAwait(false);
                }

                if (slot.Current != null)
                {
                    await slot.Current.DisposeAsync().ConfigureAwait(false);
                }
            }

            Task[] retiring;
            lock (_lock)
            {
                retiring = [.. _retiring];
            }

            await Task.WhenAll(retiring).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Runs <paramref name="action"/> on the named index under the gate; false when there is no such index.</summary>
    private async Task<bool> WithIndexAsync(string name, CancellationToken ct, Func<IndexSlot, Task> action)
    {
        ArgumentNullException.ThrowIfNull(name);
        await _gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var slot = Find(name);
            if (slot == null)
            {
                return false;
            }

            await action(slot).ConfigureAwait(false);
            return true;
        }
        finally
        {
            _gate.Release();
        }
    }

    private static string ConsumerOf(string name) => ConsumerPrefix + name;

    private static string RebuildConsumerOf(string name) => ConsumerPrefix + name + RebuildSuffix;

    private static void DeleteDirectory(string path)
    {
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }
    }

    private async Task LoadAsync(CancellationToken ct)
    {
        var entries = IndexCatalog.Read(_directory);
        var named = new HashSet<string>(StringComparer.Ordinal);
        foreach (var entry in entries)
        {
            named.Add(IndexDirectoryName.Of(entry.Name, entry.Generation));
            if (entry.PendingGeneration is { } pending)
            {
                named.Add(IndexDirectoryName.Of(entry.Name, pending));
            }
        }

        foreach (var dir in Directory.EnumerateDirectories(_directory))
        {
            if (!named.Contains(Path.GetFileName(dir)))
            {
                Log.LeftoverRemoved(_logger, dir);
                Directory.Delete(dir, recursive: true);
            }
        }

        // Consumers of indexes or rebuilds that no longer exist would hold tombstones back for ever.
        foreach (var consumer in _store.GetConsumers())
        {
            if (!consumer.Name.StartsWith(ConsumerPrefix, StringComparison.Ordinal))
            {
                continue;
            }

            var known = false;
            foreach (var entry in entries)
            {
                known |= consumer.Name == ConsumerOf(entry.Name)
                    || (entry.PendingGeneration != null && consumer.Name == RebuildConsumerOf(entry.Name));
            }

            if (!known)
            {
                await _store.UnregisterConsumerAsync(consumer.Name).ConfigureAwait(false);
            }
        }

        foreach (var entry in entries)
        {
            ct.ThrowIfCancellationRequested();
            var slot = new IndexSlot(entry.Name, entry.Generation, entry.Definition);
            slot.Current = TryOpenIndexer(slot, entry.Generation, entry.Definition, ConsumerOf(entry.Name), out slot.OpenError);
            if (entry.PendingGeneration is { } pending && entry.PendingDefinition != null)
            {
                slot.PendingGeneration = pending;
                slot.PendingDefinition = entry.PendingDefinition;
                slot.Pending = TryOpenIndexer(slot, pending, entry.PendingDefinition, RebuildConsumerOf(entry.Name), out slot.PendingError);
            }

            _slots.Add(entry.Name, slot);
        }

        foreach (var slot in _slots.Values)
        {
            slot.Current?.Start();
            if (slot.Pending != null)
            {
                slot.Pending.Start();
                TrySwapSoon(slot, slot.Pending);
            }
        }

        // A build of an older storage format keeps answering queries while a build of the current one catches up.
        foreach (var slot in _slots.Values)
        {
            if (slot.Current is { } current && current.Storage.Format < IndexLayout.CurrentFormat && slot.Pending == null)
            {
                Log.FormatRebuild(_logger, slot.Name, current.Storage.Format, IndexLayout.CurrentFormat);
                await StartRebuildAsync(slot, slot.Definition).ConfigureAwait(false);
            }
        }
    }

    private Indexer? TryOpenIndexer(IndexSlot slot, long generation, IndexDefinition definition, string consumer, out string? error)
    {
        try
        {
            error = null;
            return NewIndexer(IndexStorage.Open(BuildDirectory(slot.Name, generation), definition), consumer);
        }
        catch (Exception ex) when (ex is Ingest.Storage.StorageCorruptionException or InvalidDataException or IOException)
        {
            Indexer.RecordOpenError(_logger, slot.Name, ex);
            error = ex.Message;
            return null;
        }
    }

    private Indexer NewIndexer(IndexStorage storage, string consumer)
    {
        var indexer = new Indexer(_store, storage, consumer, _options, _loggerFactory.CreateLogger<Indexer>());
        indexer.Committed += OnCommitted;
        return indexer;
    }

    private string BuildDirectory(string name, long generation) => Path.Combine(_directory, IndexDirectoryName.Of(name, generation));

    private long NextGeneration(string name)
    {
        long max = 0;
        foreach (var dir in Directory.EnumerateDirectories(_directory))
        {
            if (IndexDirectoryName.TryParse(Path.GetFileName(dir), out var index, out var generation) && index == name)
            {
                max = Math.Max(max, generation);
            }
        }

        var slot = Find(name);
        if (slot != null)
        {
            max = Math.Max(max, Math.Max(slot.Generation, slot.PendingGeneration ?? 0));
        }

        return max + 1;
    }

    private IndexSlot? Find(string name)
    {
        lock (_lock)
        {
            return _slots.GetValueOrDefault(name);
        }
    }

    /// <summary>Under the gate.</summary>
    private void WriteCatalog()
    {
        List<IndexCatalogEntry> entries;
        lock (_lock)
        {
            entries = [.. _slots.Values.OrderBy(s => s.Name, StringComparer.Ordinal).Select(s => new IndexCatalogEntry(s.Name, s.Generation, s.Definition, s.PendingGeneration, s.PendingDefinition))];
        }

        IndexCatalog.Write(_directory, entries);
    }

    /// <summary>Under the gate: replaces any pending build with a new one of <paramref name="definition"/> from etag 0.</summary>
    private async Task StartRebuildAsync(IndexSlot slot, IndexDefinition definition)
    {
        await DropPendingAsync(slot, writeCatalog: false).ConfigureAwait(false);
        var generation = NextGeneration(slot.Name);
        var storage = IndexStorage.Open(BuildDirectory(slot.Name, generation), definition);
        var indexer = NewIndexer(storage, RebuildConsumerOf(slot.Name));
        lock (_lock)
        {
            slot.Pending = indexer;
            slot.PendingGeneration = generation;
            slot.PendingDefinition = definition;
            slot.PendingError = null;
        }

        WriteCatalog();

        // A fresh rebuild must keep every tombstone from etag 0 on; progress of an earlier rebuild is dropped.
        await _store.UnregisterConsumerAsync(RebuildConsumerOf(slot.Name)).ConfigureAwait(false);
        indexer.Start();
        TrySwapSoon(slot, indexer);
    }

    /// <summary>Under the gate: stops and deletes the pending build, if any.</summary>
    private async Task DropPendingAsync(IndexSlot slot, bool writeCatalog = true)
    {
        var pending = slot.Pending;
        var generation = slot.PendingGeneration;
        if (generation == null)
        {
            return;
        }

        lock (_lock)
        {
            slot.Pending = null;
            slot.PendingGeneration = null;
            slot.PendingDefinition = null;
            slot.PendingError = null;
        }

        if (writeCatalog)
        {
            WriteCatalog();
        }

        if (pending != null)
        {
            await pending.DisposeAsync().ConfigureAwait(false);
        }

        await _store.UnregisterConsumerAsync(RebuildConsumerOf(slot.Name)).ConfigureAwait(false);
        DeleteDirectory(BuildDirectory(slot.Name, generation.Value));
    }

    private void OnCommitted(Indexer indexer, long etag)
    {
        IndexSlot? slot;
        lock (_lock)
        {
            slot = null;
            foreach (var candidate in _slots.Values)
            {
                if (candidate.Pending == indexer)
                {
                    slot = candidate;
                }
            }
        }

        if (slot != null)
        {
            TrySwapSoon(slot, indexer);
        }
    }

    /// <summary>
    /// Swaps <paramref name="pending"/> in when it has indexed at least as far as the current build (or the current
    /// build is errored and the pending one is not stale). Runs the swap in the background, under the gate.
    /// </summary>
    private void TrySwapSoon(IndexSlot slot, Indexer pending)
    {
        if (!IsCaughtUp(slot, pending) || Interlocked.Exchange(ref slot.SwapScheduled, 1) != 0)
        {
            return;
        }

        _ = Task.Run(async () =>
        {
            try
            {
                await SwapAsync(slot, pending).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is ObjectDisposedException or OperationCanceledException)
            {
                // The set closed; the pending build resumes at the next open.
            }
            finally
            {
                Volatile.Write(ref slot.SwapScheduled, 0);
            }

            // A rebuild started (or caught up) while this swap was scheduled was not scheduled itself: look again.
            if (!_disposed && Find(slot.Name) == slot && slot.Pending is { } next)
            {
                TrySwapSoon(slot, next);
            }
        });
    }

    private bool IsCaughtUp(IndexSlot slot, Indexer pending)
    {
        if (pending.Error != null)
        {
            return false;
        }

        var current = slot.Current;
        return current == null || current.Error != null
            ? pending.LastIndexedEtag >= pending.CollectionsLastEtag()
            : pending.LastIndexedEtag >= current.LastIndexedEtag;
    }

    private async Task SwapAsync(IndexSlot slot, Indexer pending)
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_disposed || slot.Pending != pending || Find(slot.Name) != slot)
            {
                return;
            }

            // Stop the current build first so it cannot move past the pending one, then let the pending one reach it.
            var current = slot.Current;
            if (current != null)
            {
                await current.StopAsync().ConfigureAwait(false);
                if (current.Error == null && !await pending.WaitForEtagAsync(current.LastIndexedEtag, Timeout.InfiniteTimeSpan, CancellationToken.None).ConfigureAwait(false))
                {
                    current.Start();
                    return;
                }
            }

            // The consumer moves first: a crash before the catalog names the new build leaves the pending build to
            // resume, and its progress (registered again from its own etag) is still covered by index/<name>.
            await pending.RenameConsumerAsync(ConsumerOf(slot.Name)).ConfigureAwait(false);
            var oldGeneration = slot.Generation;
            lock (_lock)
            {
                slot.Current = pending;
                slot.Generation = slot.PendingGeneration!.Value;
                slot.Definition = slot.PendingDefinition!;
                slot.OpenError = null;
                slot.Pending = null;
                slot.PendingGeneration = null;
                slot.PendingDefinition = null;
                slot.PendingError = null;
            }

            WriteCatalog();
            Log.IndexSwapped(_logger, slot.Name, slot.Generation);

            // Readers of the old build finish in their own time; its directory goes when the last one is disposed.
            var retiring = RetireAsync(current, BuildDirectory(slot.Name, oldGeneration));
            lock (_lock)
            {
                _retiring.Add(retiring);
            }
        }
        finally
        {
            _gate.Release();
        }
    }

    private static async Task RetireAsync(Indexer? indexer, string directory)
    {
        if (indexer != null)
        {
            await indexer.DisposeAsync().ConfigureAwait(false);
        }

        DeleteDirectory(directory);
    }

    private IndexStatus StatusOf(IndexSlot slot)
    {
        Indexer? current;
        Indexer? pending;
        IndexDefinition definition;
        IndexDefinition? pendingDefinition;
        string? error;
        lock (_lock)
        {
            current = slot.Current;
            pending = slot.Pending;
            definition = slot.Definition;
            pendingDefinition = slot.PendingDefinition;
            error = slot.OpenError ?? current?.Error;
            if (error == null && (slot.PendingError ?? pending?.Error) is { } pendingError)
            {
                error = "the side-by-side rebuild stopped: " + pendingError;
            }
        }

        var collectionsLast = current?.CollectionsLastEtag() ?? 0;
        var last = current?.LastIndexedEtag ?? 0;
        var state = slot.OpenError != null || current?.Error != null ? IndexState.Errored
            : pendingDefinition != null ? IndexState.Rebuilding
            : IndexState.Indexing;
        var fields = new List<IndexFieldStats>(definition.Fields.Count);
        for (var f = 0; f < definition.Fields.Count; f++)
        {
            fields.Add(new IndexFieldStats(definition.Fields[f].Name, current?.Storage.WrongTypeCount(f) ?? 0, current?.Storage.NullCount(f) ?? 0));
        }

        var olderFormat = pendingDefinition != null && current != null && current.Storage.Format < IndexLayout.CurrentFormat
            ? $"the build has storage format {current.Storage.Format}; a side-by-side rebuild writes format {IndexLayout.CurrentFormat} (keyword ordinal columns)"
            : null;
        return new IndexStatus(
            definition,
            state,
            error,
            last,
            collectionsLast,
            last < collectionsLast,
            current?.Storage.EntryCount ?? 0,
            current?.BatchesClosed ?? 0,
            current?.LastBatchDocuments ?? 0,
            current?.PeakBatchMemoryBytes ?? 0,
            current?.LastBatchAt,
            fields,
            pendingDefinition,
            pendingDefinition == null ? null : pending?.LastIndexedEtag ?? 0)
        {
            RebuildReason = olderFormat,
        };
    }

    /// <summary>One index: its current build and, during a rebuild, the pending one. Fields change under the gate and <see cref="_lock"/>.</summary>
    private sealed class IndexSlot(string name, long generation, IndexDefinition definition)
    {
        public string Name { get; } = name;

        public long Generation { get; set; } = generation;

        public IndexDefinition Definition { get; set; } = definition;

        public Indexer? Current { get; set; }

        public long? PendingGeneration { get; set; }

        public IndexDefinition? PendingDefinition { get; set; }

        public Indexer? Pending { get; set; }

#pragma warning disable SA1401 // Passed by ref (out, Interlocked).
        public string? OpenError;

        public string? PendingError;

        public int SwapScheduled;
#pragma warning restore SA1401
    }
}
