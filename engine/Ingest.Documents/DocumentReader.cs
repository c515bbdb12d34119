using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Compression;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Documents.Reading;
using Ingest.Documents.Records;
using Ingest.Storage;
using Ingest.Storage.Backup;
using Ingest.Storage.Trees;

namespace Ingest.Documents;

/// <summary>
/// A consistent snapshot of the store: every read through it sees the last commit before
/// <see cref="DocumentStore.BeginRead"/>. Views and spans it returns are valid until it is
/// disposed, except the <see cref="DocumentView.Body"/> of a compressed document: that one is decompressed
/// into a buffer the reader owns and is valid until the body of another compressed document is read
/// through the same reader (copy it first to keep two at once). Any number may be open, concurrently with writes; one reader is not thread-safe.
/// Dispose it promptly: an open reader keeps the storage engine from recycling older pages.
/// </summary>
public sealed class DocumentReader : IDisposable
{
    private readonly ReadTransaction _tx;
    private readonly DecompressorPool _decompressors;
    private readonly TopicNames _topicNames;
    private BodyDecoder? _decoder;
    private Tree? _topics;
    private Tree? _dictionaries;
    private Tree? _ids;
    private Tree? _byEtag;
    private Tree? _tombstones;
    private bool _treesOpened;
    private bool? _anyExpiring;
    private bool _disposed;

    internal DocumentReader(ReadTransaction tx, DecompressorPool decompressors, TopicNames topicNames)
    {
        _tx = tx;
        _decompressors = decompressors;
        _topicNames = topicNames;
        NowTicks = DateTime.UtcNow.Ticks;
    }

    /// <summary>
    /// The moment documents are judged expired against, taken once when the snapshot began: a document whose expiry
    /// has passed is not returned by <see cref="TryGet"/> or <see cref="GetCollection"/>, even before the expiration
    /// task deletes it. (The changes feed returns it: indexes and ETL follow the store, not the clock.)
    /// </summary>
    internal long NowTicks { get; }

    /// <summary>The storage transaction id of the snapshot.</summary>
    public long TransactionId => _tx.TransactionId;

    /// <summary>Copies this snapshot of the store into <paramref name="backup"/> as the environment <paramref name="path"/>.</summary>
    public Task WriteBackupAsync(BackupWriter backup, string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(backup);
        ThrowIfDisposed();
        return backup.AddEnvironmentAsync(path, _tx, cancellationToken);
    }

    /// <summary>The etag of the last put or delete in this snapshot.</summary>
    public long LastEtag => ReadState().LastEtag;

    /// <summary>Looks a document up by id, whatever its casing.</summary>
    public bool TryGet(string id, out DocumentView document)
    {
        ArgumentNullException.ThrowIfNull(id);
        document = default;
        if (id.Length > DocumentStoreOptions.MaxIdBytes || !TryFind(id, readRecord: true, out var etag, out var record))
        {
            return false;
        }

        document = new DocumentView(this, etag, record);
        return true;
    }

    /// <summary>
    /// <see cref="TryGet"/> for an id held as UTF-8 (an index entry's), answering only whether the document is live in
    /// this snapshot (present, not expired) and at which etag: the id tree's lookup, and the record's only when some
    /// document carries an expiry (<see cref="AnyExpiring"/>); no string, no body read.
    /// </summary>
    public bool TryGetEtag(ReadOnlySpan<byte> idUtf8, out long etag)
    {
        etag = 0;
        if (idUtf8.Length > DocumentStoreOptions.MaxIdBytes)
        {
            return false;
        }

        // Sized to the id, as TryGet's key: a UTF-8 id has no more characters than bytes.
        Span<char> chars = stackalloc char[idUtf8.Length];
        return Encoding.UTF8.TryGetChars(idUtf8, chars, out var charCount)
            && TryFind(chars[..charCount], readRecord: false, out etag, out _);
    }

    /// <summary>
    /// Whether some document in this snapshot carries an expiry (the expiry tree is not empty), asked once per reader.
    /// When none does, no read can find a document expired, so a live id needs no record lookup, and the query layer
    /// knows the index's entries are all visible (no row is hidden by the clock).
    /// </summary>
    public bool AnyExpiring => _anyExpiring ??= (_tx.OpenTree(TreeNames.Expiry)?.Count ?? 0) > 0;

    /// <summary>
    /// The one lookup of a live document by id, whatever its casing: the folded id in the id tree gives the etag, and
    /// the etag tree the record, which is read (and checked against the clock) when <paramref name="readRecord"/> asks
    /// for it or an expiry could hide the document; otherwise <paramref name="record"/> is empty.
    /// </summary>
    private bool TryFind(ReadOnlySpan<char> id, bool readRecord, out long etag, out ReadOnlySpan<byte> record)
    {
        OpenTrees();
        etag = 0;
        record = default;
        if (_ids == null || id.IsEmpty)
        {
            return false;
        }

        Span<byte> key = stackalloc byte[IdKey.MaxKeyBytes(id.Length)];
        var length = IdKey.Fold(id, key);
        if (!_ids.TryGet(key[..length], out var etagValue))
        {
            return false;
        }

        var found = BinaryPrimitives.ReadInt64LittleEndian(etagValue);
        if (readRecord || AnyExpiring)
        {
            Span<byte> etagKey = stackalloc byte[EtagKey.Size];
            EtagKey.Write(etagKey, found);
            if (!_byEtag!.TryGet(etagKey, out var value))
            {
                throw new InvalidDataException($"The id index points at etag {found}, which holds no document.");
            }

            if (DocumentRecord.Read(value).IsExpired(value, NowTicks))
            {
                return false;
            }

            // The span points into the snapshot's pages, not into the stack key it was looked up with.
            record = new ReadOnlySpanHolder(value).Span;
        }

        etag = found;
        return true;
    }

    /// <summary>Copies a document out, or returns null if there is none with this id.</summary>
    public Document? Get(string id) => TryGet(id, out var view) ? view.ToDocument() : null;

    /// <summary>Documents and tombstones with an etag above <paramref name="afterEtag"/>, in etag order (pass 0 for everything).</summary>
    public ChangesEnumerator GetChangesSince(long afterEtag)
    {
        OpenTrees();
        return new ChangesEnumerator(this, _byEtag, _tombstones, afterEtag);
    }

    /// <summary>The documents of a collection (any casing of its name) with an etag above <paramref name="afterEtag"/>, in etag order.</summary>
    public CollectionEnumerator GetCollection(string collection, long afterEtag = 0)
    {
        ArgumentNullException.ThrowIfNull(collection);
        OpenTrees();
        var etags = collection.Length == 0 ? null : _tx.OpenFixedSizeTree(TreeNames.CollectionPrefix + IdKey.FoldToString(collection));
        return new CollectionEnumerator(this, etags, _byEtag, afterEtag);
    }

    /// <summary>
    /// The live documents of a collection (any casing of its name) in id order, whatever order they were written in:
    /// what a digest that must match across stores walks. Reads the whole id index once.
    /// </summary>
    public CollectionByIdEnumerator GetCollectionById(string collection)
    {
        ArgumentNullException.ThrowIfNull(collection);
        OpenTrees();
        var etags = collection.Length == 0 ? null : _tx.OpenFixedSizeTree(TreeNames.CollectionPrefix + IdKey.FoldToString(collection));
        return new CollectionByIdEnumerator(this, _ids, etags, _byEtag);
    }

    /// <summary>Whether a collection (any casing of its name) was ever written to (it may hold no documents now).</summary>
    public bool CollectionExists(string collection)
    {
        ArgumentNullException.ThrowIfNull(collection);
        ThrowIfDisposed();
        return collection.Length > 0 && _tx.OpenFixedSizeTree(TreeNames.CollectionPrefix + IdKey.FoldToString(collection)) != null;
    }

    /// <summary>The stored positions of every source, by source name and partition.</summary>
    public IReadOnlyList<StoredSourcePosition> GetSourcePositions()
    {
        var result = new List<StoredSourcePosition>();
        var sources = _tx.OpenTree(TreeNames.Sources);
        if (sources == null)
        {
            return result;
        }

        var cursor = sources.CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var key = cursor.Key;
            result.Add(ToPosition(Encoding.UTF8.GetString(key[..^5]), SourcePositionRecord.ReadPartition(key), cursor.Value));
        }

        return result;
    }

    /// <summary>The stored position of one source partition.</summary>
    public StoredSourcePosition? GetSourcePosition(string source, int partition)
    {
        ArgumentNullException.ThrowIfNull(source);
        var sources = _tx.OpenTree(TreeNames.Sources);
        if (sources == null || source.Length == 0 || source.Length > DocumentStoreOptions.MaxSourceBytes)
        {
            return null;
        }

        Span<byte> key = stackalloc byte[SourcePositionRecord.MaxKeySize(source)];
        var length = SourcePositionRecord.WriteKey(source, partition, key);
        return sources.TryGet(key[..length], out var value) ? ToPosition(source, partition, value) : null;
    }

    /// <summary>The stored positions of every partition of a source, by partition.</summary>
    public IReadOnlyList<StoredSourcePosition> GetSourcePositions(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        var result = new List<StoredSourcePosition>();
        var sources = _tx.OpenTree(TreeNames.Sources);
        if (sources == null || source.Length == 0 || source.Length > DocumentStoreOptions.MaxSourceBytes)
        {
            return result;
        }

        Span<byte> prefix = stackalloc byte[SourcePositionRecord.MaxKeySize(source)];
        var length = SourcePositionRecord.WritePrefix(source, prefix);
        prefix = prefix[..length];
        var cursor = sources.CreateCursor();
        for (var ok = cursor.Seek(prefix); ok && cursor.Key.StartsWith(prefix) && cursor.Key.Length == length + 4; ok = cursor.MoveNext())
        {
            result.Add(ToPosition(source, SourcePositionRecord.ReadPartition(cursor.Key), cursor.Value));
        }

        return result;
    }

    /// <summary>Dead letters with an id above <paramref name="afterId"/>, oldest first, at most <paramref name="limit"/>.</summary>
    public IReadOnlyList<DeadLetter> GetDeadLetters(long afterId = 0, int limit = 100)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        var result = new List<DeadLetter>();
        var deadLetters = _tx.OpenTree(TreeNames.DeadLetters);
        if (deadLetters == null || afterId == long.MaxValue)
        {
            return result;
        }

        Span<byte> from = stackalloc byte[EtagKey.Size];
        EtagKey.Write(from, afterId + 1);
        var cursor = deadLetters.CreateCursor();
        for (var ok = cursor.Seek(from); ok && result.Count < limit; ok = cursor.MoveNext())
        {
            result.Add(ToDeadLetter(EtagKey.Read(cursor.Key), cursor.Value));
        }

        return result;
    }

    /// <summary>One dead letter, or null.</summary>
    public DeadLetter? GetDeadLetter(long id)
    {
        var deadLetters = _tx.OpenTree(TreeNames.DeadLetters);
        Span<byte> key = stackalloc byte[EtagKey.Size];
        EtagKey.Write(key, id);
        return deadLetters != null && deadLetters.TryGet(key, out var value) ? ToDeadLetter(id, value) : null;
    }

    /// <summary>Registered consumers and their progress.</summary>
    public IReadOnlyList<ConsumerProgress> GetConsumers()
    {
        var result = new List<ConsumerProgress>();
        var consumers = _tx.OpenTree(TreeNames.Consumers);
        if (consumers == null)
        {
            return result;
        }

        var cursor = consumers.CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var record = RecordIO.Read<ConsumerRecord>(cursor.Value);
            result.Add(new ConsumerProgress(Encoding.UTF8.GetString(cursor.Key), record.AcknowledgedEtag, new DateTime(record.UpdatedTicks, DateTimeKind.Utc)));
        }

        return result;
    }

    /// <summary>The retention rules in force, and removed ones still being taken off stored documents.</summary>
    public IReadOnlyList<ExpirationRuleProgress> GetExpirationRules()
    {
        var result = new List<ExpirationRuleProgress>();
        foreach (var (_, progress) in Writing.TransactionWriter.ReadRuleRecords(_tx.OpenTree(TreeNames.ExpirationRules)))
        {
            result.Add(progress);
        }

        return result;
    }

    /// <summary>
    /// Documents that carry an expiry, and how many of them are due at <paramref name="now"/> (counted by walking
    /// the expiry tree's due end, up to <paramref name="maxCounted"/>).
    /// </summary>
    public (long Expiring, long Due) CountExpiring(DateTime now, long maxCounted = 1_000_000)
    {
        var tree = _tx.OpenTree(TreeNames.Expiry);
        if (tree == null)
        {
            return (0, 0);
        }

        var nowTicks = now.ToUniversalTime().Ticks;
        long due = 0;
        var cursor = tree.CreateCursor();
        for (var ok = cursor.First(); ok && due < maxCounted && ExpiryKey.ReadTicks(cursor.Key) <= nowTicks; ok = cursor.MoveNext())
        {
            due++;
        }

        return (tree.Count, due);
    }

    /// <summary>Counters of the store and of each collection.</summary>
    public DocumentStoreStats GetStats()
    {
        var state = ReadState();
        var collections = new List<CollectionStats>();
        var tree = _tx.OpenTree(TreeNames.Collections);
        var compression = _tx.OpenTree(TreeNames.Compression);
        if (tree != null)
        {
            var cursor = tree.CreateCursor();
            for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
            {
                var value = cursor.Value;
                var record = RecordIO.Read<CollectionStatsRecord>(value);

                // A collection no write has touched since compression existed holds raw JSON only.
                var compressed = compression != null && compression.TryGet(cursor.Key, out var stateValue)
                    ? RecordIO.Read<CompressionStateRecord>(stateValue)
                    : new CompressionStateRecord { StoredBytes = record.Bytes };
                collections.Add(new CollectionStats(Encoding.UTF8.GetString(value[CollectionStatsRecord.Size..]), record.Count, record.Bytes, record.LastEtag)
                {
                    StoredBodyBytes = compressed.StoredBytes,
                    DictionaryId = compressed.DictionaryId,
                });
            }
        }

        return new DocumentStoreStats(state.LastEtag, state.DocumentCount, state.TombstoneCount, state.DocumentBytes, state.DeadLetterCount, collections);
    }

    /// <summary>
    /// Reads every live document of this snapshot as a reader would: compressed ones must decompress with a
    /// dictionary the store holds to their recorded length; dictionary reference counts and stored-bytes
    /// counters must match the documents. Each problem names the document or dictionary.
    /// </summary>
    public DocumentVerificationReport VerifyDocuments()
    {
        ThrowIfDisposed();
        return DocumentVerifier.Verify(_tx, _decompressors);
    }

    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _decoder?.Dispose();
            _tx.Dispose();
        }
    }

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_disposed, this);

    /// <summary>The JSON of a compressed body, in the reader's buffer (valid until the next compressed body is decoded).</summary>
    internal ReadOnlySpan<byte> Decompress(long etag, ReadOnlySpan<byte> stored)
    {
        ThrowIfDisposed();
        _dictionaries ??= _tx.OpenTree(TreeNames.Dictionaries);
        _decoder ??= new BodyDecoder(_decompressors);
        return _decoder.Decode(etag, stored, _dictionaries);
    }

    /// <summary>The log position stored in a record's position bytes (<see cref="DocumentRecord.Position"/>).</summary>
    internal LogPosition ReadPosition(ReadOnlySpan<byte> position)
    {
        ThrowIfDisposed();
        var (topic, partition, offset) = DocumentRecord.ReadPosition(position);
        _topics ??= _tx.OpenTree(TreeNames.Topics);
        return new LogPosition(_topicNames.NameOf(topic, _topics), partition, offset);
    }

    private StoreStateRecord ReadState() => Writing.TransactionWriter.ReadState(_tx.OpenFixedSizeTree(TreeNames.State));

    private void OpenTrees()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_treesOpened)
        {
            return;
        }

        _ids = _tx.OpenTree(TreeNames.Ids);
        _byEtag = _tx.OpenTree(TreeNames.ByEtag);
        _tombstones = _tx.OpenTree(TreeNames.Tombstones);
        _treesOpened = true;
    }

    private static StoredSourcePosition ToPosition(string source, int partition, ReadOnlySpan<byte> value)
    {
        var record = RecordIO.Read<SourcePositionRecord>(value);
        return new StoredSourcePosition(new SourcePosition(source, partition, record.NextOffset), record.Etag, new DateTime(record.UpdatedTicks, DateTimeKind.Utc));
    }

    private static DeadLetter ToDeadLetter(long id, ReadOnlySpan<byte> value)
    {
        var header = DeadLetterRecord.Read(value);
        var rest = value[DeadLetterRecord.Size..];
        var source = Encoding.UTF8.GetString(rest[..header.SourceLength]);
        var reason = Encoding.UTF8.GetString(rest.Slice(header.SourceLength, header.ReasonLength));
        var raw = rest.Slice(header.SourceLength + header.ReasonLength, header.RawLength).ToArray();
        return new DeadLetter(id, new SourcePosition(source, header.Partition, header.Offset), reason, new DateTime(header.StoredTicks, DateTimeKind.Utc), raw);
    }
}
