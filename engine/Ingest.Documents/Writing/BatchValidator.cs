using System.Collections.Concurrent;
using System.Text;
using System.Text.Json;
using Ingest.Documents.Ids;
using Ingest.SharedSource;

namespace Ingest.Documents.Writing;

/// <summary>
/// Checks a whole batch before it joins a transaction, on the caller's thread, so a bad batch
/// fails alone and never half-applies. Validation also folds ids into lookup keys and resolves
/// collection names, work the single writer thread then does not repeat.
/// </summary>
internal sealed class BatchValidator(DocumentStoreOptions options)
{
    private const int MaxCachedCollections = 4096;
    private const int MaxReasonBytes = 64 * 1024;
    private readonly ConcurrentDictionary<string, CollectionName> _collections = new(StringComparer.Ordinal);

    public void Validate(WriteBatch batch)
    {
        batch.ResetKeys();
        var operations = batch.Operations;
        for (var i = 0; i < operations.Count; i++)
        {
            var op = operations[i];
            switch (op.Kind)
            {
                case OperationKind.Put:
                    FoldId(batch, ref op, i);
                    op.CollectionName = Collection(op.Name, op.Text!, i);
                    ValidateBody(batch, op, i);
                    break;
                case OperationKind.Delete:
                    FoldId(batch, ref op, i);
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
        }
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
        batch.CommitKey(length);
        op.KeyOffset = offset;
        op.KeyLength = length;
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

    private void ValidateBody(WriteBatch batch, in BatchOperation op, int index)
    {
        if (op.PayloadLength > options.MaxBodyBytes)
        {
            throw new InvalidDocumentException(op.Name, index, $"the body is {op.PayloadLength} bytes; the limit is {options.MaxBodyBytes}.");
        }

        if (op.PayloadLength == 0)
        {
            throw new InvalidDocumentException(op.Name, index, "the body is empty; a document is a JSON object.");
        }

        if (op.BodyValidated)
        {
            return;
        }

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
}
