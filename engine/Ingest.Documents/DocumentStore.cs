using Ingest.Documents.Compression;
using Ingest.Documents.Expiration;
using Ingest.Documents.Reading;
using Ingest.Documents.Records;
using Ingest.Documents.Writing;
using Ingest.Storage;

namespace Ingest.Documents;

/// <summary>
/// JSON documents in collections, with case-insensitive, case-preserving ids, etags, tombstones,
/// a changes feed, source positions and dead letters, over one storage environment (one directory).
/// <para>
/// Writes go through <see cref="WriteAsync"/>: each <see cref="WriteBatch"/> is validated on the
/// caller's thread, then commits atomically and durably, merged with batches of concurrent
/// callers into shared transactions (group commit). Reads go through <see cref="BeginRead"/>
/// snapshots, or the copying helpers on this class. Thread-safe.
/// </para>
/// </summary>
public sealed class DocumentStore : IDisposable
{
    private readonly StorageEnvironment _env;
    private readonly BatchValidator _validator;
    private readonly GroupCommitWriter _writer;
    private readonly DecompressorPool _decompressors = new();
    private readonly TopicNames _topicNames = new();
    private readonly BatchCompressor _compressor;
    private readonly CurrentExpirationRules _expiration = new();
    private TaskCompletionSource _changed = NewSignal();
    private long _lastEtag;
    private int _disposed;

    private DocumentStore(StorageEnvironment env, DocumentStoreOptions options)
    {
        _env = env;
        Options = options;
        _validator = new BatchValidator(options, _expiration);
        using (var read = env.BeginRead())
        {
            _lastEtag = TransactionWriter.ReadState(read.OpenFixedSizeTree(TreeNames.State)).LastEtag;
            var rules = new List<ExpirationRule>();
            foreach (var (_, progress) in TransactionWriter.ReadRuleRecords(read.OpenTree(TreeNames.ExpirationRules)))
            {
                if (progress.Rule.Keep > TimeSpan.Zero)
                {
                    rules.Add(progress.Rule);
                }
            }

            _expiration.Rules = new ExpirationRules(rules);
        }

        _compressor = new BatchCompressor(options, LoadDictionary);
        _writer = new GroupCommitWriter(env, options.MaxTransactionBytes, new TransactionWriter(new CompressionWriter(options, _decompressors, _compressor), _expiration, options.MaxJsonDepth), OnCommitted);
    }

    /// <summary>The store's directory.</summary>
    public string Directory => _env.Directory;

    /// <summary>The options it was opened with.</summary>
    public DocumentStoreOptions Options { get; }

    /// <summary>The etag of the last committed put or delete.</summary>
    public long LastEtag => Volatile.Read(ref _lastEtag);

    /// <summary>
    /// Storage transactions this store has committed since it opened; with <see cref="SyncMode.Durable"/>
    /// each is one journal write and one sync. Under group commit, far fewer than <see cref="BatchCount"/>.
    /// </summary>
    public long CommitCount => _writer.Commits;

    /// <summary>Journal syncs the storage engine performed since the store opened (0 without <see cref="SyncMode.Durable"/>).</summary>
    public long JournalSyncCount => _env.JournalSyncCount;

    /// <summary>The store's bytes on disk: its data file, journal files, free pages inside the data file and the file system's free bytes.</summary>
    public StorageSpace GetSpace() => _env.GetSpace();

    /// <summary>Bytes the storage engine wrote to its journal since the store opened.</summary>
    public long JournalBytesWritten => _env.JournalBytesWritten;

    /// <summary>The data file's size in bytes.</summary>
    public long DataFileBytes => _env.DataFileBytes;

    /// <summary>Committed pages waiting for the background flusher.</summary>
    public int FlushBacklogPages => _env.FlushBacklogPages;

    /// <summary>Storage transactions open now (readers and the writer).</summary>
    public int OpenTransactionCount => _env.OpenTransactionCount;

    /// <summary>Write batches committed since the store opened.</summary>
    public long BatchCount => _writer.Batches;

    /// <summary>
    /// Set while the disk is full (writes fail with this exception meanwhile); clears by itself once
    /// space is back. See <see cref="StorageEnvironment.DiskFull"/>.
    /// </summary>
    public DiskFullException? DiskFull => _env.DiskFull;

    /// <summary>The first damaged page a read found since the store opened, or null. See <see cref="StorageEnvironment.Corruption"/>.</summary>
    public StorageCorruptionException? Corruption => _env.Corruption;

    /// <summary>What opening with <see cref="StorageOptions.AcceptJournalLoss"/> gave up, or null.</summary>
    public JournalLoss? AcceptedJournalLoss => _env.AcceptedJournalLoss;

    internal StorageEnvironment Environment => _env;

    /// <summary>Checks every page and tree of the store's last commit; see <see cref="StorageEnvironment.Verify"/>.</summary>
    public VerificationReport Verify()
    {
        ThrowIfDisposed();
        return _env.Verify();
    }

    /// <summary>Opens (creating if needed) the store in <paramref name="directory"/>.</summary>
    /// <exception cref="IOException">The directory is open elsewhere.</exception>
    public static DocumentStore Open(string directory, DocumentStoreOptions? options = null)
    {
        options ??= new DocumentStoreOptions();
        options.Validate();
        var env = StorageEnvironment.Open(directory, options.Storage);
        try
        {
            return new DocumentStore(env, options);
        }
        catch
        {
            env.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Validates the batch, then commits it durably (possibly in one transaction with other
    /// callers' batches). The task completes once the batch is durable.
    /// </summary>
    /// <exception cref="InvalidDocumentException">Thrown at once, nothing written: an id, collection, body or source is invalid.</exception>
    /// <exception cref="InvalidOperationException">The batch is already being written.</exception>
    public Task<WriteResult> WriteAsync(WriteBatch batch) => Enqueue(batch, predecessor: null);

    /// <summary>
    /// Like <see cref="WriteAsync"/>, but the batch commits only if the latest write of
    /// <paramref name="predecessor"/> (a batch written to this store before, possibly still in
    /// flight) succeeds: if that write fails, this one fails with
    /// <see cref="PredecessorWriteFailedException"/> and writes nothing. A source can so queue its
    /// next batch while the previous one commits without ever letting a later batch's positions
    /// become durable past an earlier batch that failed.
    /// </summary>
    /// <exception cref="InvalidDocumentException">Thrown at once, nothing written: an id, collection, body or source is invalid.</exception>
    /// <exception cref="InvalidOperationException">The batch is already being written.</exception>
    /// <exception cref="ArgumentException">The predecessor was never written to this store.</exception>
    public Task<WriteResult> WriteAfterAsync(WriteBatch batch, WriteBatch predecessor)
    {
        ArgumentNullException.ThrowIfNull(predecessor);
        if (predecessor.LastWrite is not { } last || last.Owner != _writer)
        {
            throw new ArgumentException("The predecessor batch was never written to this store.", nameof(predecessor));
        }

        return Enqueue(batch, last);
    }

    private Task<WriteResult> Enqueue(WriteBatch batch, PendingBatch? predecessor)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ThrowIfDisposed();
        if (!batch.TryBeginFlight())
        {
            throw new InvalidOperationException("This batch is already being written; wait for that write to complete.");
        }

        try
        {
            _validator.Validate(batch);
            _compressor.Compress(batch);
            var pending = new PendingBatch(batch, _writer, predecessor);
            _writer.Enqueue(pending);
            batch.LastWrite = pending;
            return pending.Task;
        }
        catch
        {
            batch.EndFlight();
            throw;
        }
    }

    /// <summary>
    /// Checks a batch as <see cref="WriteAsync"/> would, without writing it (throws <see cref="InvalidDocumentException"/>):
    /// a cluster node checks an HTTP write before it produces it to the cluster topic.
    /// </summary>
    internal void Validate(WriteBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ThrowIfDisposed();
        _validator.Validate(batch);
    }

    /// <summary>Validates and commits a batch, blocking until it is durable.</summary>
    public WriteResult Write(WriteBatch batch) => WriteAsync(batch).GetAwaiter().GetResult();

    /// <summary>Begins a snapshot read. Dispose it when done.</summary>
    public DocumentReader BeginRead()
    {
        ThrowIfDisposed();
        return new DocumentReader(_env.BeginRead(), _decompressors, _topicNames);
    }

    /// <summary>
    /// Begins a snapshot read at a moment when no write can commit, and hands it to <paramref name="alongside"/>
    /// in that moment (on the writer's thread: keep it short, and do not write to this store from it). Snapshots of
    /// what follows this store taken there (indexes, ETL) are then neither ahead of it nor behind the progress it
    /// records for them, which a backup of the whole service needs. <paramref name="alongside"/> owns the reader,
    /// and what it returns owns everything it opened: it is disposed if the pause fails afterwards.
    /// </summary>
    public async Task<T> BeginReadWhileWritesPausedAsync<T>(Func<DocumentReader, T> alongside)
        where T : class, IDisposable
    {
        ArgumentNullException.ThrowIfNull(alongside);
        T? opened = null;
        try
        {
            return await Enqueue(_ =>
            {
                // The writer re-applies each write of a merged transaction alone when one of them fails: a
                // second run replaces the first one's snapshots, which must not stay open (they hold back the flusher).
                opened?.Dispose();
                opened = null;
                return opened = alongside(BeginRead());
            }).ConfigureAwait(false);
        }
        catch
        {
            opened?.Dispose();
            throw;
        }
    }

    /// <summary>A copy of the document with this id (any casing), or null.</summary>
    public Document? Get(string id)
    {
        using var reader = BeginRead();
        return reader.Get(id);
    }

    /// <summary>Up to <paramref name="limit"/> documents of a collection after <paramref name="afterEtag"/>, in etag order, copied.</summary>
    public IReadOnlyList<Document> GetCollectionPage(string collection, long afterEtag = 0, int limit = 100)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        using var reader = BeginRead();
        var result = new List<Document>();
        foreach (var document in reader.GetCollection(collection, afterEtag))
        {
            if (result.Count >= limit)
            {
                break;
            }

            result.Add(document.ToDocument());
        }

        return result;
    }

    /// <summary>Up to <paramref name="limit"/> documents and tombstones after <paramref name="afterEtag"/>, in etag order, copied.</summary>
    public IReadOnlyList<Document> GetChangesSince(long afterEtag, int limit = 1000)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        using var reader = BeginRead();
        var result = new List<Document>();
        foreach (var change in reader.GetChangesSince(afterEtag))
        {
            if (result.Count >= limit)
            {
                break;
            }

            result.Add(change.ToDocument());
        }

        return result;
    }

    /// <summary>
    /// Completes, with the new last etag, as soon as a put or delete with an etag above
    /// <paramref name="afterEtag"/> has committed (at once if one already has). No polling: the
    /// writer signals each commit.
    /// </summary>
    public async Task<long> WaitForChangesAsync(long afterEtag, CancellationToken cancellationToken = default)
    {
        while (true)
        {
            ThrowIfDisposed();
            var signal = Volatile.Read(ref _changed);
            var last = Volatile.Read(ref _lastEtag);
            if (last > afterEtag)
            {
                return last;
            }

            await signal.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <inheritdoc cref="DocumentReader.GetSourcePosition"/>
    public StoredSourcePosition? GetSourcePosition(string source, int partition)
    {
        using var reader = BeginRead();
        return reader.GetSourcePosition(source, partition);
    }

    /// <inheritdoc cref="DocumentReader.GetSourcePositions"/>
    public IReadOnlyList<StoredSourcePosition> GetSourcePositions(string source)
    {
        using var reader = BeginRead();
        return reader.GetSourcePositions(source);
    }

    /// <inheritdoc cref="DocumentReader.GetDeadLetters"/>
    public IReadOnlyList<DeadLetter> GetDeadLetters(long afterId = 0, int limit = 100)
    {
        using var reader = BeginRead();
        return reader.GetDeadLetters(afterId, limit);
    }

    /// <inheritdoc cref="DocumentReader.GetDeadLetter"/>
    public DeadLetter? GetDeadLetter(long id)
    {
        using var reader = BeginRead();
        return reader.GetDeadLetter(id);
    }

    /// <summary>Deletes a dead letter (after it was replayed or judged worthless); false if there was none.</summary>
    public Task<bool> DeleteDeadLetterAsync(long id) => Enqueue(writer => writer.DeleteDeadLetter(id));

    /// <summary>
    /// Makes <paramref name="rules"/> the collections' retention rules (replacing all earlier ones), recorded in
    /// the store. Documents written from then on carry their expiry; those already stored are re-stamped by
    /// <see cref="RestampExpiriesAsync"/>. True when a rule was added, changed or removed.
    /// </summary>
    /// <exception cref="ArgumentException">A rule's keep is not positive, or two rules name one collection.</exception>
    public Task<bool> SetExpirationRulesAsync(IReadOnlyList<ExpirationRule> rules)
    {
        ArgumentNullException.ThrowIfNull(rules);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var rule in rules)
        {
            BatchValidator.ValidateName(rule.Collection, "collection name", DocumentStoreOptions.MaxCollectionBytes, null, 0);
            if (rule.Keep <= TimeSpan.Zero)
            {
                throw new ArgumentException($"The retention of collection '{rule.Collection}' is {rule.Keep}; it must be positive.", nameof(rules));
            }

            if (rule.Field is { Length: 0 })
            {
                throw new ArgumentException($"The retention field of collection '{rule.Collection}' is empty; leave it out to count from the time of writing.", nameof(rules));
            }

            if (!seen.Add(Ids.IdKey.FoldToString(rule.Collection)))
            {
                throw new ArgumentException($"Two retention rules name the collection '{rule.Collection}'.", nameof(rules));
            }
        }

        if (StoredRulesAre(rules))
        {
            return Task.FromResult(false); // the start of every run sets the same rules again: no transaction for that
        }

        return Enqueue(writer => writer.SetExpirationRules(rules));
    }

    private bool StoredRulesAre(IReadOnlyList<ExpirationRule> rules)
    {
        using var read = _env.BeginRead();
        var inForce = 0;
        foreach (var (_, progress) in TransactionWriter.ReadRuleRecords(read.OpenTree(TreeNames.ExpirationRules)))
        {
            if (progress.Rule.Keep == TimeSpan.Zero)
            {
                continue; // a removed rule whose walk may still run; a wanted rule for it differs below
            }

            inForce++;
            var found = false;
            foreach (var rule in rules)
            {
                found |= rule == progress.Rule;
            }

            if (!found)
            {
                return false;
            }
        }

        return inForce == rules.Count;
    }

    /// <summary>The retention rules in force, and removed ones still being taken off stored documents.</summary>
    public IReadOnlyList<ExpirationRuleProgress> GetExpirationRules()
    {
        using var reader = BeginRead();
        return reader.GetExpirationRules();
    }

    /// <summary>
    /// Brings up to <paramref name="budget"/> stored documents of collections whose rule changed under the new rule,
    /// in one transaction. Returns how many were visited; 0 when every collection is up to date.
    /// </summary>
    public Task<int> RestampExpiriesAsync(int budget)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(budget);
        if (!HasRestampWork())
        {
            return Task.FromResult(0); // an idle run queues no transaction (no commit, no fsync)
        }

        return Enqueue(writer => writer.RestampExpiries(budget));
    }

    /// <summary>
    /// Deletes, in one transaction, up to <paramref name="max"/> documents whose expiry is at or before <paramref name="now"/>,
    /// earliest first, each as an ordinary delete (a tombstone for indexes and ETL).
    /// </summary>
    public Task<ExpirationBatchResult> DeleteExpiredAsync(DateTime now, int max)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(max);
        var nowTicks = now.ToUniversalTime().Ticks;
        if (!HasExpiredDocuments(nowTicks))
        {
            return Task.FromResult(new ExpirationBatchResult(0, false, new Dictionary<string, long>(StringComparer.Ordinal)));
        }

        return Enqueue(writer => writer.DeleteExpired(nowTicks, max));
    }

    /// <summary>Deletes, in one transaction, up to <paramref name="max"/> dead letters stored at or before <paramref name="cutoff"/>, oldest first.</summary>
    public Task<long> DeleteDeadLettersBeforeAsync(DateTime cutoff, int max)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(max);
        var cutoffTicks = cutoff.ToUniversalTime().Ticks;
        if (!HasDeadLettersBefore(cutoffTicks))
        {
            return Task.FromResult(0L);
        }

        return Enqueue(writer => writer.DeleteDeadLettersBefore(cutoffTicks, max));
    }

    // The checks below read the last commit; the writer looks again under its own transaction, so a race only costs a batch that finds less.
    private bool HasRestampWork()
    {
        using var read = _env.BeginRead();
        foreach (var (_, progress) in TransactionWriter.ReadRuleRecords(read.OpenTree(TreeNames.ExpirationRules)))
        {
            if (progress.Restamping)
            {
                return true;
            }
        }

        return false;
    }

    private bool HasExpiredDocuments(long nowTicks)
    {
        using var read = _env.BeginRead();
        var tree = read.OpenTree(TreeNames.Expiry);
        if (tree == null)
        {
            return false;
        }

        var cursor = tree.CreateCursor();
        return cursor.First() && ExpiryKey.ReadTicks(cursor.Key) <= nowTicks;
    }

    private bool HasDeadLettersBefore(long cutoffTicks)
    {
        using var read = _env.BeginRead();
        var tree = read.OpenTree(TreeNames.DeadLetters);
        if (tree == null)
        {
            return false;
        }

        var cursor = tree.CreateCursor();
        return cursor.First() && DeadLetterRecord.Read(cursor.Value).StoredTicks <= cutoffTicks;
    }

    /// <summary>Counters of the store and of each collection, and the size of its files on disk.</summary>
    public DocumentStoreStats GetStats()
    {
        using var reader = BeginRead();
        long bytes = 0;
        foreach (var file in new DirectoryInfo(Directory).EnumerateFiles())
        {
            bytes += file.Length;
        }

        return reader.GetStats() with { StorageBytes = bytes };
    }

    /// <summary>
    /// Registers a consumer of the changes feed (an index, an ETL task) so tombstones it has not
    /// processed yet are kept. Registering an existing consumer keeps its progress. Returns the
    /// consumer's acknowledged etag.
    /// </summary>
    public Task<long> RegisterConsumerAsync(string name, long startEtag = 0)
    {
        ValidateConsumer(name);
        ArgumentOutOfRangeException.ThrowIfNegative(startEtag);
        return Enqueue(writer => writer.RegisterConsumer(name, startEtag));
    }

    /// <summary>
    /// Records that a consumer processed every change up to <paramref name="acknowledgedEtag"/>
    /// (progress never moves back), then purges the tombstones every consumer has passed.
    /// Returns how many tombstones were purged.
    /// </summary>
    /// <exception cref="InvalidOperationException">The consumer is not registered.</exception>
    public Task<long> ReportProgressAsync(string name, long acknowledgedEtag)
    {
        ValidateConsumer(name);
        return Enqueue(writer => writer.ReportProgress(name, acknowledgedEtag));
    }

    /// <summary>Removes a consumer; its progress no longer holds tombstones back. False if it was not registered.</summary>
    public Task<bool> UnregisterConsumerAsync(string name)
    {
        ValidateConsumer(name);
        return Enqueue(writer => writer.UnregisterConsumer(name));
    }

    /// <inheritdoc cref="DocumentReader.GetConsumers"/>
    public IReadOnlyList<ConsumerProgress> GetConsumers()
    {
        using var reader = BeginRead();
        return reader.GetConsumers();
    }

    /// <summary>
    /// Purges tombstones at or below the lowest etag every registered consumer acknowledged (all
    /// tombstones when no consumer is registered). Returns how many were purged.
    /// </summary>
    public Task<long> PurgeTombstonesAsync() => Enqueue(writer => writer.PurgeTombstones());

    /// <summary>Completes queued writes, then closes the storage environment.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _writer.Dispose();
        Volatile.Read(ref _changed).TrySetException(new ObjectDisposedException(nameof(DocumentStore)));
        _env.Dispose();
        _decompressors.Dispose();
        _compressor.Dispose();
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private static void ValidateConsumer(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        BatchValidator.ValidateName(name, "consumer name", DocumentStoreOptions.MaxSourceBytes, null, 0);
    }

    private Task<T> Enqueue<T>(Func<TransactionWriter, T> action)
    {
        ThrowIfDisposed();
        var pending = new PendingAction<T>(action);
        _writer.Enqueue(pending);
        return pending.Task;
    }

    private void OnCommitted(long lastEtag)
    {
        if (lastEtag <= Volatile.Read(ref _lastEtag))
        {
            return;
        }

        Volatile.Write(ref _lastEtag, lastEtag);
        Interlocked.Exchange(ref _changed, NewSignal()).TrySetResult();
    }

    /// <summary>A dictionary's bytes as the last commit holds them, for callers' compression contexts; null if it holds none with that id.</summary>
    private byte[]? LoadDictionary(uint id)
    {
        using var read = _env.BeginRead();
        return DictionaryRecord.Load(read.OpenTree(TreeNames.Dictionaries), id);
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
}
