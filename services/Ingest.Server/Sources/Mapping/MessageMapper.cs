using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;
using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;
using Ingest.Documents.Json;

namespace Ingest.Server.Sources.Mapping;

/// <summary>Turns a broker message into a document operation, or says why it is a dead letter.</summary>
public static class MessageMapper
{
    /// <summary>The longest document id, in UTF-8 bytes.</summary>
    public const int MaxIdBytes = 512;

    /// <summary>The longest collection name from an <c>ingest-collection</c> header, in UTF-8 bytes.</summary>
    public const int MaxCollectionBytes = 512;

    /// <summary>How deeply a body's JSON may nest (Utf8JsonReader's default); a store that trusts the mapper's check must allow at least this.</summary>
    public const int MaxJsonDepth = 64;

    // Header values quoted in dead-letter messages are cut to this many bytes.
    private const int MaxQuotedBytes = 64;

    public static MappingResult Map(in IncomingMessage message, MappingRules rules)
    {
        ArgumentNullException.ThrowIfNull(rules);

        var hasOperationHeader = message.TryGetHeader(IngestHeaders.Operation, out var operationHeader);
        if (!IngestOperations.TryParse(operationHeader, out var operation))
        {
            return MappingResult.DeadLetter(
                DeadLetterReason.UnknownOperation,
                $"unknown operation: the {IngestHeaders.Operation} header is '{Quote(operationHeader)}'; expected '{IngestOperations.PutName}' or '{IngestOperations.DeleteName}'");
        }

        if (message.IsTombstone)
        {
            // A null value deletes, but an explicit put contradicts it: dead-letter rather than delete data.
            if (hasOperationHeader && !operationHeader.IsEmpty && operation == IngestOperation.Put)
            {
                return MappingResult.DeadLetter(
                    DeadLetterReason.NotJson,
                    $"not JSON: the {IngestHeaders.Operation} header says '{IngestOperations.PutName}' but the message is a tombstone (null value)");
            }

            operation = IngestOperation.Delete;
        }

        var hasIdHeader = message.TryGetHeader(IngestHeaders.Id, out var idHeader);
        string? bodyId = null;
        if (operation == IngestOperation.Put)
        {
            var body = message.Body;
            if (body.Length > rules.MaxBodyBytes)
            {
                return MappingResult.DeadLetter(
                    DeadLetterReason.TooLarge,
                    $"too large: the body is {body.Length} bytes; the limit is {rules.MaxBodyBytes} bytes");
            }

            // The body is only searched for an id when no earlier source has one.
            var idProperty = hasIdHeader || message.HasKey || message.MessageId is not null ? null : rules.IdProperty;
            var failure = ValidateBody(body, idProperty, out bodyId, out var bodyIdError);
            if (failure is not null)
            {
                return MappingResult.DeadLetter(DeadLetterReason.NotJson, failure);
            }

            if (bodyIdError is not null)
            {
                return MappingResult.DeadLetter(DeadLetterReason.InvalidId, bodyIdError);
            }
        }

        var idFailure = ResolveId(message, hasIdHeader, idHeader, rules, operation, bodyId, out var id);
        if (idFailure is { } failed)
        {
            return MappingResult.DeadLetter(failed.Reason, failed.Message);
        }

        string collection;
        if (message.TryGetHeader(IngestHeaders.Collection, out var collectionHeader) && !collectionHeader.IsEmpty)
        {
            var error = CheckName(collectionHeader, MaxCollectionBytes, $"the {IngestHeaders.Collection} header");
            if (error is not null)
            {
                return MappingResult.DeadLetter(DeadLetterReason.InvalidCollection, "invalid collection: " + error);
            }

            collection = Encoding.UTF8.GetString(collectionHeader);
        }
        else
        {
            collection = rules.Collection ?? message.Destination;
        }

        return operation == IngestOperation.Delete
            ? MappingResult.Delete(id!, collection)
            : MappingResult.Put(id!, collection, message.Body);
    }

    private static (DeadLetterReason Reason, string Message)? ResolveId(
        in IncomingMessage message, bool hasIdHeader, ReadOnlySpan<byte> idHeader, MappingRules rules, IngestOperation operation,
        string? bodyId, out string? id)
    {
        id = null;
        string? error;

        // A present source is authoritative: an empty or malformed one is an error, not a reason to look further.
        if (hasIdHeader)
        {
            error = CheckName(idHeader, MaxIdBytes, $"the {IngestHeaders.Id} header");
            id = error is null ? Encoding.UTF8.GetString(idHeader) : null;
        }
        else if (message.HasKey)
        {
            error = CheckName(message.Key, MaxIdBytes, "the message key");
            id = error is null ? Encoding.UTF8.GetString(message.Key) : null;
        }
        else if (message.MessageId is not null)
        {
            error = CheckName(message.MessageId, "the message-id");
            id = error is null ? message.MessageId : null;
        }
        else if (bodyId is not null)
        {
            error = CheckName(bodyId, $"the body's '{rules.IdProperty}' property");
            id = error is null ? bodyId : null;
        }
        else
        {
            var body = operation == IngestOperation.Delete
                ? "the body of a delete is not read"
                : rules.IdProperty is null
                    ? "no id property is configured"
                    : $"the body has no '{rules.IdProperty}' property";
            return (DeadLetterReason.NoId,
                $"no document id: no {IngestHeaders.Id} header, no message key or message-id, and {body}");
        }

        return error is null ? null : (DeadLetterReason.InvalidId, "invalid id: " + error);
    }

    // Returns null when the body is one JSON object, else a message naming the problem. When
    // idProperty is set, its top-level value is read in the same pass.
    private static string? ValidateBody(ReadOnlySpan<byte> body, string? idProperty, out string? id, out string? idError)
    {
        id = null;
        idError = null;
        if (body.IsEmpty)
        {
            return "not JSON: the body is empty";
        }

        // The reader checks structure but not the UTF-8 inside strings: one vectorised pass over the
        // whole body does, and only a bad body pays for finding the offending byte.
        var invalid = Utf8Validation.IndexOfInvalid(body);
        if (invalid >= 0)
        {
            return $"not JSON: the body is not valid UTF-8 at byte {invalid}";
        }

        // Most bodies are plain objects: a cheap proof of that skips the reader, which then only
        // runs to read an id property or to name what is wrong.
        if (idProperty is null && JsonObjectFastCheck.IsCertainlyValidObject(body, MaxJsonDepth))
        {
            return null;
        }

        var reader = new Utf8JsonReader(body, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow, MaxDepth = MaxJsonDepth });
        var idFound = false;
        try
        {
            if (!reader.Read())
            {
                return "not JSON: the body holds only whitespace";
            }

            if (reader.TokenType != JsonTokenType.StartObject)
            {
                return $"not JSON object: the body's top-level value is {JsonTokenDescriptions.Describe(reader.TokenType)}, not an object";
            }

            while (reader.Read())
            {
                if (idProperty is not null && !idFound && reader.CurrentDepth == 1
                    && reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals(idProperty))
                {
                    // The first occurrence wins; a later duplicate is ignored.
                    idFound = true;
                    reader.Read();
                    ReadId(ref reader, idProperty, out id, out idError);
                }
            }
        }
        catch (JsonException e)
        {
            return "not JSON: " + e.Message;
        }

        return null;
    }

    private static void ReadId(ref Utf8JsonReader reader, string idProperty, out string? id, out string? idError)
    {
        id = null;
        idError = null;
        switch (reader.TokenType)
        {
            case JsonTokenType.String:
                try
                {
                    id = reader.GetString();
                }
                catch (InvalidOperationException)
                {
                    idError = $"invalid id: the body's '{idProperty}' property is not valid UTF-16 text (a lone surrogate escape)";
                }

                break;
            case JsonTokenType.Number:
                // Numbers keep their JSON text, so 1e3 and 1000 are different ids.
                id = Encoding.UTF8.GetString(reader.ValueSpan);
                break;
            case JsonTokenType.Null:
                break;
            default:
                idError = $"invalid id: the body's '{idProperty}' property is {JsonTokenDescriptions.Describe(reader.TokenType)}, not a string or number";
                break;
        }
    }

    private static string? CheckName(ReadOnlySpan<byte> utf8, int maxBytes, string source)
    {
        if (utf8.IsEmpty)
        {
            return $"{source} is empty";
        }

        if (!Utf8.IsValid(utf8))
        {
            return $"{source} is not valid UTF-8";
        }

        return utf8.Length > maxBytes ? $"{source} is {utf8.Length} UTF-8 bytes; the limit is {maxBytes}" : null;
    }

    private static string? CheckName(string text, string source)
    {
        if (text.Length == 0)
        {
            return $"{source} is empty";
        }

        // Every char is at least one UTF-8 byte, so a longer string cannot fit.
        if (text.Length > MaxIdBytes)
        {
            return $"{source} is more than {MaxIdBytes} UTF-8 bytes long";
        }

        Span<byte> buffer = stackalloc byte[MaxIdBytes * 3];
        var status = Utf8.FromUtf16(text, buffer, out _, out var written, replaceInvalidSequences: false);
        if (status != OperationStatus.Done)
        {
            return $"{source} is not valid Unicode (a lone surrogate)";
        }

        return written > MaxIdBytes ? $"{source} is {written} UTF-8 bytes; the limit is {MaxIdBytes}" : null;
    }

    private static string Quote(ReadOnlySpan<byte> utf8)
    {
        var cut = utf8.Length > MaxQuotedBytes;
        var text = Encoding.UTF8.GetString(cut ? utf8[..MaxQuotedBytes] : utf8);
        return cut ? text + "…" : text;
    }
}
