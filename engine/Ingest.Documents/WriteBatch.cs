using System.Text;
using Ingest.Documents.Writing;

namespace Ingest.Documents;

/// <summary>
/// Puts, deletes, source positions and dead letters that commit together, in one durable
/// transaction, or not at all. Operations apply in the order they were added. Payloads are copied
/// in, so the caller's buffers can be reused at once. A batch cannot change while a write of it
/// is in flight; afterwards it can be <see cref="Clear"/>ed and reused. Not thread-safe.
/// </summary>
public sealed class WriteBatch
{
    private readonly List<BatchOperation> _operations = [];
    private byte[] _buffer = [];
    private int _payloadEnd;
    private int _used;
    private int _inFlight;

    /// <summary>Operations in the batch.</summary>
    public int Count => _operations.Count;

    /// <summary>Bytes of JSON bodies and dead letter payloads in the batch.</summary>
    public long PayloadBytes => _payloadEnd;

    internal List<BatchOperation> Operations => _operations;

    /// <summary>The retention rules validation stamped the puts' expiries with; the writer re-stamps them if the rules changed since.</summary>
    internal Expiration.ExpirationRules? ExpirationRules { get; set; }

    /// <summary>The store's record of this batch's latest write (in flight or finished), for writes ordered after it.</summary>
    internal PendingBatch? LastWrite { get; set; }

    /// <summary>Adds a put of a JSON document (UTF-8) with the given id and collection.</summary>
    public WriteBatch Put(string id, string collection, ReadOnlySpan<byte> json) => Put(id, collection, json, null);

    /// <summary>
    /// Adds a put of a JSON document (UTF-8) with the given id and collection, recording the log position of the
    /// record that produced it (null: none), which readers see as <see cref="DocumentView.Position"/>.
    /// </summary>
    public WriteBatch Put(string id, string collection, ReadOnlySpan<byte> json, LogPosition? position)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(collection);
        EnsureMutable();
        var offset = Append(json);
        var op = new BatchOperation { Kind = OperationKind.Put, Name = id, Text = collection, PayloadOffset = offset, PayloadLength = json.Length };
        SetPosition(ref op, position);
        _operations.Add(op);
        return this;
    }

    /// <summary>
    /// Adds a put whose body the caller has already checked exactly as the store would: valid UTF-8
    /// holding one JSON object no deeper than <see cref="DocumentStoreOptions.MaxJsonDepth"/> (the
    /// ingestion mapper does, while it looks for the id). The store then checks only the body's
    /// size, so the body is not read twice. A body that breaks this promise is stored as given, so this
    /// is internal: only the ingestion service (which uses it for bodies its mapper read) and tests can
    /// skip the check; every public put (the HTTP API, other callers) is validated by the store.
    /// </summary>
    internal WriteBatch PutValidated(string id, string collection, ReadOnlySpan<byte> json, LogPosition? position = null)
    {
        Put(id, collection, json, position);
        var op = _operations[^1];
        op.BodyValidated = true;
        _operations[^1] = op;
        return this;
    }

    /// <summary>Adds a put of a JSON document given as a string.</summary>
    public WriteBatch Put(string id, string collection, string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        return Put(id, collection, Encoding.UTF8.GetBytes(json));
    }

    /// <summary>Adds a delete. Deleting an id that does not exist (when the batch commits) does nothing and takes no etag.</summary>
    public WriteBatch Delete(string id) => Delete(id, null);

    /// <summary>Adds a delete whose tombstone records the log position of the record that asked for it (null: none).</summary>
    public WriteBatch Delete(string id, LogPosition? position)
    {
        ArgumentNullException.ThrowIfNull(id);
        EnsureMutable();
        var op = new BatchOperation { Kind = OperationKind.Delete, Name = id };
        SetPosition(ref op, position);
        _operations.Add(op);
        return this;
    }

    /// <summary>Records where a source resumes once this batch is durable (the last one added for a source and partition wins).</summary>
    public WriteBatch SetSourcePosition(string source, int partition, long nextOffset)
    {
        ArgumentNullException.ThrowIfNull(source);
        EnsureMutable();
        _operations.Add(new BatchOperation { Kind = OperationKind.SourcePosition, Name = source, Partition = partition, Offset = nextOffset });
        return this;
    }

    /// <inheritdoc cref="SetSourcePosition(string, int, long)"/>
    public WriteBatch SetSourcePosition(SourcePosition position) => SetSourcePosition(position.Source, position.Partition, position.NextOffset);

    /// <summary>Stores a message that could not become a document, with its raw bytes, where it came from and why.</summary>
    public WriteBatch AddDeadLetter(ReadOnlySpan<byte> raw, SourcePosition position, string reason)
    {
        ArgumentNullException.ThrowIfNull(position.Source);
        ArgumentNullException.ThrowIfNull(reason);
        EnsureMutable();
        var offset = Append(raw);
        _operations.Add(new BatchOperation
        {
            Kind = OperationKind.DeadLetter,
            Name = position.Source,
            Text = reason,
            Partition = position.Partition,
            Offset = position.NextOffset,
            PayloadOffset = offset,
            PayloadLength = raw.Length,
        });
        return this;
    }

    /// <summary>
    /// Deletes the dead letter with this id when the batch commits, so a replayed message's
    /// document and the removal of its dead letter are one transaction. An absent id is a no-op.
    /// </summary>
    public WriteBatch DeleteDeadLetter(long id)
    {
        EnsureMutable();
        _operations.Add(new BatchOperation { Kind = OperationKind.DeleteDeadLetter, Name = string.Empty, Offset = id });
        return this;
    }

    /// <summary>Empties the batch for reuse.</summary>
    public void Clear()
    {
        EnsureMutable();
        _operations.Clear();
        _payloadEnd = 0;
        _used = 0;
    }

    internal ReadOnlySpan<byte> Bytes(int offset, int length) => _buffer.AsSpan(offset, length);

    /// <summary>Marks the batch in flight; false if it already is.</summary>
    internal bool TryBeginFlight() => Interlocked.CompareExchange(ref _inFlight, 1, 0) == 0;

    internal void EndFlight() => Volatile.Write(ref _inFlight, 0);

    /// <summary>Drops keys from a previous validation.</summary>
    internal void ResetKeys() => _used = _payloadEnd;

    /// <summary>Reserves room after the payloads for a key; validation writes folded ids there.</summary>
    internal Span<byte> ReserveKey(int maxLength, out int offset)
    {
        Ensure(maxLength);
        offset = _used;
        return _buffer.AsSpan(_used, maxLength);
    }

    /// <summary>Keeps the first <paramref name="length"/> bytes of the key just reserved: the next reservation starts after them.</summary>
    internal void AdvancePastKey(int length) => _used += length;

    internal void SetOperation(int index, in BatchOperation operation) => _operations[index] = operation;

    private static void SetPosition(ref BatchOperation op, LogPosition? position)
    {
        if (position is { } p)
        {
            ArgumentNullException.ThrowIfNull(p.Topic, nameof(position));
            op.Topic = p.Topic;
            op.Partition = p.Partition;
            op.Offset = p.Offset;
        }
    }

    private int Append(ReadOnlySpan<byte> bytes)
    {
        ResetKeys();
        Ensure(bytes.Length);
        var offset = _used;
        bytes.CopyTo(_buffer.AsSpan(_used));
        _used += bytes.Length;
        _payloadEnd = _used;
        return offset;
    }

    private void Ensure(int more)
    {
        if ((long)_used + more > Array.MaxLength)
        {
            throw new InvalidOperationException("The batch is too large.");
        }

        if (_used + more > _buffer.Length)
        {
            var size = Math.Max(_used + more, (int)Math.Min(Array.MaxLength, Math.Max(4096L, _buffer.Length * 2L)));
            Array.Resize(ref _buffer, size);
        }
    }

    private void EnsureMutable()
    {
        if (Volatile.Read(ref _inFlight) != 0)
        {
            throw new InvalidOperationException("The batch is being written; wait for the write to complete before changing it.");
        }
    }
}
