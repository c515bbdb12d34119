using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Documents.Records;
using Ingest.Storage;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Writing;

/// <summary>
/// Applies operations inside one storage write transaction, keeping the store's counters and the
/// touched collections' counters in memory and writing them back once in <see cref="End"/>.
/// Used by the writer thread only; reused across transactions.
/// </summary>
internal sealed partial class TransactionWriter(CompressionWriter compression, CurrentExpirationRules expiration, int maxJsonDepth) : IDisposable
{
    private readonly Dictionary<string, CollectionEntry> _collections = new(StringComparer.Ordinal);
    private readonly TopicNumbers _topics = new();
    private byte[] _purgeKeys = new byte[EtagKey.Size * 1024];
    private WriteTransaction? _tx;
    private Tree _ids = null!;
    private Tree _byEtag = null!;
    private Tree _tombstones = null!;
    private Tree _collectionStats = null!;
    private Tree? _expiry;
    private FixedSizeTree _stateTree = null!;
    private StoreStateRecord _state;
    private byte[] _value = new byte[4096];
    private long _nowTicks;

    public long LastEtag => _state.LastEtag;

    public WriteTransaction Transaction => _tx ?? throw new InvalidOperationException("No transaction.");

    public void Begin(WriteTransaction tx)
    {
        _tx = tx;
        _collections.Clear();
        _nowTicks = DateTime.UtcNow.Ticks;
        _ids = tx.CreateTree(TreeNames.Ids);
        _byEtag = tx.CreateTree(TreeNames.ByEtag);
        _tombstones = tx.CreateTree(TreeNames.Tombstones);
        _collectionStats = tx.CreateTree(TreeNames.Collections);
        _expiry = null;
        _stateTree = tx.CreateFixedSizeTree(TreeNames.State, StoreStateRecord.Size);
        _state = ReadState(_stateTree);
        compression.Begin(tx, _nowTicks);
        _topics.Begin(tx);
    }

    public static StoreStateRecord ReadState(FixedSizeTree? stateTree)
    {
        if (stateTree == null || !stateTree.TryGet(0, out var value))
        {
            return new StoreStateRecord { Format = StoreStateRecord.CurrentFormat };
        }

        var state = RecordIO.Read<StoreStateRecord>(value);
        if (state.Format != StoreStateRecord.CurrentFormat)
        {
            throw new InvalidDataException($"The document store's format is {state.Format}; this version reads format {StoreStateRecord.CurrentFormat}.");
        }

        return state;
    }

    public void End()
    {
        foreach (var entry in _collections.Values)
        {
            if (!entry.Dirty)
            {
                continue;
            }

            var value = Buffer(CollectionStatsRecord.Size + entry.NameUtf8.Length);
            RecordIO.Write(value, in entry.Stats);
            entry.NameUtf8.CopyTo(value[CollectionStatsRecord.Size..]);
            _collectionStats.Put(entry.FoldedUtf8, value);
        }

        compression.End(_collections.Values);
        _stateTree.Put(0, RecordIO.AsBytes(ref _state));
        _tx = null;
    }

    /// <summary>After the transaction <see cref="Begin"/> was given committed.</summary>
    public void Committed()
    {
        compression.Committed();
        _topics.Committed();
    }

    public void Dispose() => compression.Dispose();

    /// <summary>Applies a validated batch; returns the etags it took.</summary>
    public WriteResult Apply(WriteBatch batch)
    {
        long first = 0;
        long last = 0;
        foreach (var op in batch.Operations)
        {
            long etag = 0;
            switch (op.Kind)
            {
                case OperationKind.Put:
                    etag = Put(batch, op, ReferenceEquals(batch.ExpirationRules, expiration.Rules));
                    break;
                case OperationKind.Delete:
                    etag = Delete(batch.Bytes(op.KeyOffset, op.KeyLength), in op, expired: false, out _);
                    break;
                case OperationKind.SourcePosition:
                    SetSourcePosition(op.Name, op.Partition, op.Offset);
                    break;
                case OperationKind.DeadLetter:
                    AddDeadLetter(op.Name, op.Partition, op.Offset, op.Text!, batch.Bytes(op.PayloadOffset, op.PayloadLength));
                    break;
                case OperationKind.DeleteDeadLetter:
                    DeleteDeadLetter(op.Offset);
                    break;
            }

            if (etag != 0)
            {
                first = first == 0 ? etag : first;
                last = etag;
            }
        }

        return new WriteResult(first, last, Transaction.TransactionId);
    }

    private long Put(WriteBatch batch, in BatchOperation op, bool stampCurrent)
    {
        var key = batch.Bytes(op.KeyOffset, op.KeyLength);
        var name = op.CollectionName!;
        var collection = Collection(name.FoldedUtf8, name.Folded, name.Utf8);
        var etag = ++_state.LastEtag;

        // One descent of the id index (a random leaf per put) both points the id at the new etag and
        // tells which document it replaces.
        Span<byte> etagValue = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(etagValue, etag);
        Span<byte> previous = stackalloc byte[8];
        var replaced = _ids.Put(key, etagValue, previous);
        if (replaced >= 0)
        {
            if (replaced != previous.Length)
            {
                throw new InvalidDataException($"The id index holds a {replaced}-byte value for an id; it holds 8-byte etags.");
            }

            RemoveLive(BinaryPrimitives.ReadInt64LittleEndian(previous), key, name.Utf8, collection, Tombstone.None, default, out _);
        }

        var json = batch.Bytes(op.PayloadOffset, op.PayloadLength);

        // Validation stamped the expiry under the rules of its moment; rules changed since then are
        // applied here, where rule changes and writes are serialized.
        var expires = stampCurrent
            ? op.ExpiresTicks
            : expiration.Rules.Compute(name.Folded, json, op.ExplicitExpiresTicks, _nowTicks, maxJsonDepth);
        var expiresBytes = expires == 0 ? 0 : DocumentRecord.ExpiresSize;
        var positionBytes = op.Topic is null ? 0 : DocumentRecord.PositionSize;
        var topic = op.Topic is null ? 0 : _topics.NumberOf(op.Topic);
        var precompressed = op.StoredLength > 0 ? batch.Bytes(op.StoredOffset, op.StoredLength) : default;
        var body = compression.Encode(collection, json, in op, precompressed, out var flags);
        var idBytes = Encoding.UTF8.GetByteCount(op.Name);
        var afterNames = DocumentRecord.Size + idBytes + name.Utf8.Length;
        var size = afterNames + expiresBytes + positionBytes + body.Length;
        var value = Buffer(size);
        var header = new DocumentRecord
        {
            LastModifiedTicks = _nowTicks,
            Flags = (uint)flags | (expires == 0 ? 0u : (uint)DocumentFlags.Expires) | (positionBytes == 0 ? 0u : (uint)DocumentFlags.Positioned),
            IdLength = (ushort)idBytes,
            CollectionLength = (ushort)name.Utf8.Length,
        };
        RecordIO.Write(value, in header);
        Encoding.UTF8.GetBytes(op.Name, value[DocumentRecord.Size..]);
        name.Utf8.CopyTo(value[(DocumentRecord.Size + idBytes)..]);
        if (expires != 0)
        {
            BinaryPrimitives.WriteInt64LittleEndian(value[afterNames..], expires);
        }

        if (positionBytes != 0)
        {
            DocumentRecord.WritePosition(value[(afterNames + expiresBytes)..], topic, op.Partition, op.Offset);
        }

        body.CopyTo(value[(afterNames + expiresBytes + positionBytes)..]);

        Span<byte> etagKey = stackalloc byte[EtagKey.Size];
        EtagKey.Write(etagKey, etag);
        _byEtag.Put(etagKey, value);
        if (expires != 0)
        {
            PutExpiry(expires, key, etag);
        }

        collection.Etags.Add(etag);
        collection.Stats.Count++;
        collection.Stats.Bytes += json.Length;
        collection.Stats.LastEtag = etag;
        collection.Dirty = true;
        _state.DocumentCount++;
        _state.DocumentBytes += json.Length;
        compression.AfterPut(collection);
        return etag;
    }

    /// <summary>
    /// Deletes the document with this folded id, leaving a tombstone: with <paramref name="op"/>'s log position for
    /// a delete asked for, or, when <paramref name="expired"/>, with the expiry and the position of the version that expired.
    /// </summary>
    private long Delete(ReadOnlySpan<byte> key, in BatchOperation op, bool expired, out CollectionEntry? collection)
    {
        collection = null;
        if (!_ids.TryGet(key, out var existing))
        {
            return 0;
        }

        var oldEtag = BinaryPrimitives.ReadInt64LittleEndian(existing);
        var tombstone = expired
            ? Tombstone.OfExpired
            : op.Topic is null ? Tombstone.Plain : Tombstone.Positioned;
        var topic = tombstone == Tombstone.Positioned ? _topics.NumberOf(op.Topic!) : 0;
        Span<byte> position = stackalloc byte[DocumentRecord.PositionSize];
        DocumentRecord.WritePosition(position, topic, op.Partition, op.Offset);
        var record = RemoveLive(oldEtag, key, default, null, tombstone, position, out var removedFrom);
        collection = removedFrom;
        _ids.Delete(key);

        var etag = ++_state.LastEtag;
        removedFrom.Stats.LastEtag = etag;
        Span<byte> etagKey = stackalloc byte[EtagKey.Size];
        EtagKey.Write(etagKey, etag);
        _tombstones.Put(etagKey, record);
        _state.TombstoneCount++;
        return etag;
    }

    /// <summary>
    /// Removes the live document at <paramref name="etag"/> from the etag tree, its collection's set
    /// and the counters. Unless <paramref name="tombstone"/> is <see cref="Tombstone.None"/>, returns its tombstone
    /// record (in the shared value buffer: valid until the next call that uses it); a <see cref="Tombstone.Positioned"/>
    /// one carries <paramref name="position"/>'s bytes.
    /// </summary>
    private ReadOnlySpan<byte> RemoveLive(
        long etag, ReadOnlySpan<byte> foldedId, ReadOnlySpan<byte> hintCollectionUtf8, CollectionEntry? hint, Tombstone tombstone, ReadOnlySpan<byte> position, out CollectionEntry collection)
    {
        Span<byte> etagKey = stackalloc byte[EtagKey.Size];
        var value = ReadDocument(etagKey, etag, "The id index");
        var header = DocumentRecord.Read(value);
        var collectionUtf8 = header.Collection(value);
        var expiresTicks = header.ExpiresTicks(value);

        collection = hint != null && collectionUtf8.SequenceEqual(hintCollectionUtf8)
            ? hint
            : CollectionOf(collectionUtf8);
        var bodyLength = compression.Removed(collection, header, header.Body(value));

        ReadOnlySpan<byte> result = default;
        if (tombstone != Tombstone.None)
        {
            result = MakeTombstone(header, value, tombstone, position);
        }

        if (header.HasExpiry)
        {
            DeleteExpiry(expiresTicks, foldedId); // after the last use of value: another tree's change may move pages
        }

        _byEtag.Delete(etagKey);
        collection.Etags.Delete(etag);
        collection.Stats.Count--;
        collection.Stats.Bytes -= bodyLength;
        collection.Dirty = true;
        _state.DocumentCount--;
        _state.DocumentBytes -= bodyLength;
        return result;
    }

    /// <summary>The live document at <paramref name="etag"/> (its key written to <paramref name="etagKey"/>); <paramref name="pointer"/> names the tree that led here, for the error.</summary>
    private ReadOnlySpan<byte> ReadDocument(Span<byte> etagKey, long etag, string pointer)
    {
        EtagKey.Write(etagKey, etag);
        return _byEtag.TryGet(etagKey, out var value)
            ? value
            : throw new InvalidDataException($"{pointer} points at etag {etag}, which holds no document.");
    }

    private CollectionEntry CollectionOf(ReadOnlySpan<byte> collectionUtf8)
    {
        var name = Encoding.UTF8.GetString(collectionUtf8);
        var folded = IdKey.FoldToString(name);
        return Collection(Encoding.UTF8.GetBytes(folded), folded, collectionUtf8.ToArray());
    }

    private CollectionEntry Collection(byte[] foldedUtf8, string folded, byte[] nameUtf8)
    {
        if (_collections.TryGetValue(folded, out var entry))
        {
            return entry;
        }

        var stats = default(CollectionStatsRecord);
        var storedName = nameUtf8;
        if (_collectionStats.TryGet(foldedUtf8, out var value))
        {
            stats = RecordIO.Read<CollectionStatsRecord>(value);
            storedName = value[CollectionStatsRecord.Size..].ToArray();
        }

        var etags = Transaction.CreateFixedSizeTree(TreeNames.CollectionPrefix + folded, 0);
        entry = new CollectionEntry(foldedUtf8, storedName, etags, stats);
        compression.Load(entry);
        _collections[folded] = entry;
        return entry;
    }

    private void SetSourcePosition(string source, int partition, long nextOffset)
    {
        var sources = Transaction.CreateTree(TreeNames.Sources);
        Span<byte> key = stackalloc byte[SourcePositionRecord.MaxKeySize(source)];
        var length = SourcePositionRecord.WriteKey(source, partition, key);
        var record = new SourcePositionRecord { NextOffset = nextOffset, Etag = _state.LastEtag, UpdatedTicks = _nowTicks };
        sources.Put(key[..length], RecordIO.AsBytes(ref record));
    }

    private void AddDeadLetter(string source, int partition, long offset, string reason, ReadOnlySpan<byte> raw)
    {
        var deadLetters = Transaction.CreateTree(TreeNames.DeadLetters);
        var sourceBytes = Encoding.UTF8.GetByteCount(source);
        var reasonBytes = Encoding.UTF8.GetByteCount(reason);
        var value = Buffer(DeadLetterRecord.Size + sourceBytes + reasonBytes + raw.Length);
        var header = new DeadLetterRecord
        {
            Offset = offset,
            StoredTicks = _nowTicks,
            Partition = partition,
            RawLength = raw.Length,
            SourceLength = sourceBytes,
            ReasonLength = reasonBytes,
        };
        RecordIO.Write(value, in header);
        Encoding.UTF8.GetBytes(source, value[DeadLetterRecord.Size..]);
        Encoding.UTF8.GetBytes(reason, value[(DeadLetterRecord.Size + sourceBytes)..]);
        raw.CopyTo(value[(DeadLetterRecord.Size + sourceBytes + reasonBytes)..]);
        Span<byte> key = stackalloc byte[EtagKey.Size];
        EtagKey.Write(key, ++_state.LastDeadLetterId);
        deadLetters.Put(key, value);
        _state.DeadLetterCount++;
    }

    public bool DeleteDeadLetter(long id)
    {
        var deadLetters = Transaction.OpenTree(TreeNames.DeadLetters);
        Span<byte> key = stackalloc byte[EtagKey.Size];
        EtagKey.Write(key, id);
        if (deadLetters == null || !deadLetters.Delete(key))
        {
            return false;
        }

        _state.DeadLetterCount--;
        return true;
    }

    /// <summary>Registers a consumer (keeping its progress if it exists); returns its acknowledged etag.</summary>
    public long RegisterConsumer(string name, long startEtag)
    {
        var consumers = Transaction.CreateTree(TreeNames.Consumers);
        var key = Encoding.UTF8.GetBytes(name);
        if (consumers.TryGet(key, out var value))
        {
            return RecordIO.Read<ConsumerRecord>(value).AcknowledgedEtag;
        }

        var record = new ConsumerRecord { AcknowledgedEtag = startEtag, RegisteredTicks = _nowTicks, UpdatedTicks = _nowTicks };
        consumers.Put(key, RecordIO.AsBytes(ref record));
        return startEtag;
    }

    /// <summary>Moves a consumer's acknowledged etag forward (never back) and purges tombstones every consumer has passed.</summary>
    public long ReportProgress(string name, long acknowledgedEtag)
    {
        var consumers = Transaction.CreateTree(TreeNames.Consumers);
        var key = Encoding.UTF8.GetBytes(name);
        if (!consumers.TryGet(key, out var value))
        {
            throw new InvalidOperationException($"The consumer '{name}' is not registered.");
        }

        var record = RecordIO.Read<ConsumerRecord>(value);
        if (acknowledgedEtag > record.AcknowledgedEtag)
        {
            record.AcknowledgedEtag = acknowledgedEtag;
            record.UpdatedTicks = _nowTicks;
            consumers.Put(key, RecordIO.AsBytes(ref record));
        }

        return PurgeTombstones();
    }

    public bool UnregisterConsumer(string name)
    {
        var consumers = Transaction.OpenTree(TreeNames.Consumers);
        return consumers != null && consumers.Delete(Encoding.UTF8.GetBytes(name));
    }

    /// <summary>Deletes the tombstones at or below the lowest etag every registered consumer acknowledged (all of them if none is registered).</summary>
    public long PurgeTombstones()
    {
        var limit = _state.LastEtag;
        var consumers = Transaction.OpenTree(TreeNames.Consumers);
        if (consumers != null)
        {
            var cursor = consumers.CreateCursor();
            for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
            {
                limit = Math.Min(limit, RecordIO.Read<ConsumerRecord>(cursor.Value).AcknowledgedEtag);
            }
        }

        if (limit <= _state.TombstonesPurgedThrough || _state.TombstoneCount == 0)
        {
            return 0;
        }

        // Tombstone keys are 8-byte big-endian etags: collect them packed end to end, in order, and
        // remove them in one sorted pass.
        var used = 0;
        var tombstones = _tombstones.CreateCursor();
        for (var ok = tombstones.First(); ok && EtagKey.Read(tombstones.Key) <= limit; ok = tombstones.MoveNext())
        {
            if (used + EtagKey.Size > _purgeKeys.Length)
            {
                Array.Resize(ref _purgeKeys, _purgeKeys.Length * 2);
            }

            tombstones.Key.CopyTo(_purgeKeys.AsSpan(used));
            used += EtagKey.Size;
        }

        var purged = used == 0 ? 0 : _tombstones.DeleteSorted(_purgeKeys.AsSpan(0, used), EtagKey.Size);
        if (_purgeKeys.Length > 1024 * 1024)
        {
            _purgeKeys = new byte[EtagKey.Size * 1024]; // a rare huge purge does not pin its buffer
        }

        _state.TombstoneCount -= purged;
        _state.TombstonesPurgedThrough = limit;
        return purged;
    }

    private Span<byte> Buffer(int size)
    {
        if (_value.Length < size)
        {
            _value = new byte[Math.Max(size, _value.Length * 2)];
        }

        return _value.AsSpan(0, size);
    }
}
