using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using System.Text;
using System.Text.Json;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Documents.Json;
using Ingest.Storage.Threading;

namespace Ingest.Documents.Writing;

/// <summary>
/// Checks a whole batch before it joins a transaction, on the caller's thread, so a bad batch
/// fails alone and never half-applies. Validation also folds ids into lookup keys and resolves
/// collection names, work the single writer thread then does not repeat.
/// <para>
/// Reading the JSON bodies is most of the work (a tenth of a durable batched put's CPU, on the
/// caller's thread while the writer waits for the batch). So it runs after the other checks, and
/// for a large batch a thread-pool thread helps with it (<see cref="ParallelBodyCheck"/>). The error
/// reported is still the one a check in operation order meets first.
/// </para>
/// </summary>
internal sealed class BatchValidator(DocumentStoreOptions options, CurrentExpirationRules expiration)
{
    private const int MaxCachedCollections = 4096;
    private const int MaxReasonBytes = 64 * 1024;

    /// <summary>Below this many bytes of JSON to read, handing half to another thread costs more than it saves.</summary>
    private const long ParallelBodyBytes = 256 * 1024;

    private readonly ConcurrentDictionary<string, CollectionName> _collections = new(StringComparer.Ordinal);

    public void Validate(WriteBatch batch)
    {
        batch.ResetKeys();
        var operations = batch.Operations;
        var rules = expiration.Rules;
        batch.ExpirationRules = rules;
        var nowTicks = rules.Count == 0 ? 0 : DateTime.UtcNow.Ticks;

        // Every check but reading the bodies, in order; the first failure ends the pass, and only
        // bodies before it can fail first.
        var checkedUpTo = operations.Count;
        ExceptionDispatchInfo? failure = null;
        long jsonBytes = 0;
        for (var i = 0; i < operations.Count; i++)
        {
            try
            {
                jsonBytes += Validate(batch, i, rules, nowTicks);
            }
#pragma warning disable CA1031 // Rethrown below unless a body before this operation fails first.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                failure = ExceptionDispatchInfo.Capture(ex);
                checkedUpTo = i;
                break;
            }
        }

        if (jsonBytes >= ParallelBodyBytes && checkedUpTo > 1)
        {
            new ParallelBodyCheck(this, batch, checkedUpTo).Run();
        }
        else
        {
            for (var i = 0; i < checkedUpTo; i++)
            {
                var op = operations[i];
                if (NeedsJsonCheck(op))
                {
                    ValidateJson(batch, op, i);
                }
            }
        }

        failure?.Throw();
    }

    private static bool NeedsJsonCheck(in BatchOperation op) => op.Kind == OperationKind.Put && !op.BodyValidated;

    /// <summary>Checks operation <paramref name="i"/> except its JSON; returns the bytes of JSON left to read.</summary>
    private long Validate(WriteBatch batch, int i, ExpirationRules rules, long nowTicks)
    {
        var op = batch.Operations[i];
        switch (op.Kind)
        {
            case OperationKind.Put:
                FoldId(batch, ref op, i);
                op.CollectionName = Collection(op.Name, op.Text!, i);
                ValidateBodySize(op, i);
                StampExpiry(batch, ref op, i, rules, nowTicks);
                ValidatePosition(op, i);
                break;
            case OperationKind.Delete:
                FoldId(batch, ref op, i);
                ValidatePosition(op, i);
                break;
            case OperationKind.SourcePosition:
                ValidateSource(op.Name, i);
                if (op.Offset < 0)
                {
                    throw new InvalidDocumentException(null, i, $"source '{op.Name}' partition {op.Partition}: the next offset {op.Offset} is negative.");
                }

                break;
            case OperationKind.DeadLetter:
                ValidateSource(op.Name, i);
                if (op.PayloadLength > options.MaxBodyBytes)
                {
                    throw new InvalidDocumentException(null, i, $"the dead letter from '{op.Name}' is {op.PayloadLength} bytes; the limit is {options.MaxBodyBytes}.");
                }

                if (Encoding.UTF8.GetByteCount(op.Text!) > MaxReasonBytes)
                {
                    throw new InvalidDocumentException(null, i, $"the dead letter reason is longer than {MaxReasonBytes} bytes.");
                }

                break;
            case OperationKind.DeleteDeadLetter:
                if (op.Offset < 1)
                {
                    throw new InvalidDocumentException(null, i, $"the dead letter id {op.Offset} is not positive; dead letter ids start at 1.");
                }

                break;
        }

        batch.SetOperation(i, op);
        return NeedsJsonCheck(op) ? op.PayloadLength : 0;
    }

    public static void ValidateName(string name, string what, int maxBytes, string? documentId, int index)
    {
        if (name.Length == 0)
        {
            throw new InvalidDocumentException(documentId, index, $"the {what} is empty.");
        }

        if (!IdKey.IsWellFormed(name))
        {
            throw new InvalidDocumentException(documentId, index, $"the {what} contains a lone UTF-16 surrogate.");
        }

        if (name.Length > maxBytes || Encoding.UTF8.GetByteCount(name) > maxBytes)
        {
            throw new InvalidDocumentException(documentId, index, $"the {what} is {Encoding.UTF8.GetByteCount(name)} UTF-8 bytes; the limit is {maxBytes}.");
        }
    }

    private static void FoldId(WriteBatch batch, ref BatchOperation op, int index)
    {
        ValidateName(op.Name, "id", DocumentStoreOptions.MaxIdBytes, op.Name, index);
        var key = batch.ReserveKey(IdKey.MaxKeyBytes(op.Name.Length), out var offset);
        var length = IdKey.Fold(op.Name, key);
        batch.AdvancePastKey(length);
        op.KeyOffset = offset;
        op.KeyLength = length;
    }

    /// <summary>
    /// Reads the document's own expiry and applies its collection's retention, here on the caller's thread
    /// so the writer only copies the result into the record. Only a body holding the bytes "@expires", or
    /// one of a collection with a field rule, is parsed.
    /// </summary>
    private void StampExpiry(WriteBatch batch, ref BatchOperation op, int index, ExpirationRules rules, long nowTicks)
    {
        var body = batch.Bytes(op.PayloadOffset, op.PayloadLength);
        try
        {
            op.ExplicitExpiresTicks = ExpiryParser.ReadExplicit(body, options.MaxJsonDepth);
        }
        catch (FormatException ex)
        {
            throw new InvalidDocumentException(op.Name, index, ex.Message, ex);
        }

        op.ExpiresTicks = rules.Count == 0
            ? op.ExplicitExpiresTicks
            : rules.Compute(op.CollectionName!.Folded, body, op.ExplicitExpiresTicks, nowTicks, options.MaxJsonDepth);
    }

    private static void ValidatePosition(in BatchOperation op, int index)
    {
        if (op.Topic is not { } topic)
        {
            return;
        }

        ValidateName(topic, "log position's topic", DocumentStoreOptions.MaxSourceBytes, op.Name, index);
        if (op.Partition < 0 || op.Offset < 0)
        {
            throw new InvalidDocumentException(op.Name, index, $"the log position {topic}-{op.Partition}-{op.Offset} has a negative partition or offset.");
        }
    }

    private static void ValidateSource(string source, int index)
    {
        ValidateName(source, "source name", DocumentStoreOptions.MaxSourceBytes, null, index);
        if (source.Contains('\0', StringComparison.Ordinal))
        {
            throw new InvalidDocumentException(null, index, "the source name contains a NUL character.");
        }
    }

    private CollectionName Collection(string id, string collection, int index)
    {
        if (_collections.TryGetValue(collection, out var name))
        {
            return name;
        }

        ValidateName(collection, "collection name", DocumentStoreOptions.MaxCollectionBytes, id, index);
        ValidateCollectionCharacters(collection, id, index);
        name = new CollectionName(collection);
        if (_collections.Count < MaxCachedCollections)
        {
            _collections.TryAdd(collection, name);
        }

        return name;
    }

    /// <summary>
    /// A collection name is shown in headers, logs and dashboards: it must have a visible character
    /// and no control characters (C0, DEL, C1), line or paragraph separators, or bidirectional
    /// formatting characters, which would break a header or make a name look like another.
    /// </summary>
    private static void ValidateCollectionCharacters(string collection, string id, int index)
    {
        if (string.IsNullOrWhiteSpace(collection))
        {
            throw new InvalidDocumentException(id, index, "the collection name is only whitespace.");
        }

        for (var i = 0; i < collection.Length; i++)
        {
            var c = collection[i];
            if (char.IsControl(c) || c is '\u2028' or '\u2029' or '\u200E' or '\u200F' or (>= '\u202A' and <= '\u202E') or (>= '\u2066' and <= '\u2069'))
            {
                throw new InvalidDocumentException(
                    id, index, $"the collection name has the character U+{(int)c:X4} at position {i}; control, line separator and bidirectional formatting characters are not allowed.");
            }
        }
    }

    private void ValidateBodySize(in BatchOperation op, int index)
    {
        if (op.PayloadLength > options.MaxBodyBytes)
        {
            throw new InvalidDocumentException(op.Name, index, $"the body is {op.PayloadLength} bytes; the limit is {options.MaxBodyBytes}.");
        }

        if (op.PayloadLength == 0)
        {
            throw new InvalidDocumentException(op.Name, index, "the body is empty; a document is a JSON object.");
        }
    }

    /// <summary>Valid UTF-8 holding one JSON object no deeper than the limit. Thread-safe: reads the batch only.</summary>
    private void ValidateJson(WriteBatch batch, in BatchOperation op, int index)
    {
        var body = batch.Bytes(op.PayloadOffset, op.PayloadLength);
        var invalid = Utf8Validation.IndexOfInvalid(body);
        if (invalid >= 0)
        {
            throw new InvalidDocumentException(op.Name, index, $"the body is not valid UTF-8 at byte {invalid}.");
        }

        // A cheap proof for the common case; the reader below judges everything else and names the problem.
        if (JsonObjectFastCheck.IsCertainlyValidObject(body, options.MaxJsonDepth))
        {
            return;
        }

        var reader = new Utf8JsonReader(body, new JsonReaderOptions { MaxDepth = options.MaxJsonDepth });
        try
        {
            if (!reader.Read())
            {
                throw new InvalidDocumentException(op.Name, index, "the body is empty; a document is a JSON object.");
            }

            if (reader.TokenType != JsonTokenType.StartObject)
            {
                throw new InvalidDocumentException(op.Name, index, $"the body is a JSON {reader.TokenType}; a document is a JSON object.");
            }

            while (reader.Read())
            {
            }
        }
        catch (JsonException ex)
        {
            throw new InvalidDocumentException(op.Name, index, $"the body is not valid JSON: {ex.Message}", ex);
        }
    }

    /// <summary>
    /// Reads the JSON bodies of operations [0, count) on the caller's thread and one thread-pool
    /// thread (<see cref="SharedChunkWork"/>), then throws the lowest failing operation's error.
    /// </summary>
    private sealed class ParallelBodyCheck(BatchValidator validator, WriteBatch batch, int count) : SharedChunkWork
    {
        private const int Chunk = 32;
        private readonly Lock _failureLock = new();
        private int _failedAt = int.MaxValue;
        private Exception? _failure;

        public void Run()
        {
            RunChunks((count + Chunk - 1) / Chunk);
            if (_failure != null)
            {
                ExceptionDispatchInfo.Throw(_failure);
            }
        }

        protected override bool ShouldRun(int chunk) => chunk * Chunk <= Volatile.Read(ref _failedAt);

        protected override void RunChunk(int chunk)
        {
            var operations = batch.Operations;
            var start = chunk * Chunk;
            for (var i = start; i < Math.Min(count, start + Chunk); i++)
            {
                var op = operations[i];
                if (!NeedsJsonCheck(op))
                {
                    continue;
                }

                try
                {
                    validator.ValidateJson(batch, op, i);
                }
#pragma warning disable CA1031 // Nothing may escape a thread-pool thread; the caller throws it.
                catch (Exception ex)
#pragma warning restore CA1031
                {
                    lock (_failureLock)
                    {
                        if (i < _failedAt)
                        {
                            _failedAt = i;
                            _failure = ex;
                        }
                    }

                    return; // the rest of this chunk comes after the failure
                }
            }
        }
    }
}
