using System.Text;
using Ingest.Contracts.Messages;
using Ingest.Documents.Json;
using Ingest.Server.Scripting;

namespace Ingest.Server.Sources.Mapping;

/// <summary>
/// The one mapping step, for the Kafka source, the RabbitMQ source and dead-letter replay: a
/// message becomes a put, a delete or a dead letter. It never throws for a message: a failure
/// anywhere in mapping becomes the message's dead letter, with the exception as the reason.
/// </summary>
internal static class IngestItemMapper
{
    /// <param name="message">The message, viewed in the client's buffers.</param>
    /// <param name="rules">The source's mapping rules.</param>
    /// <param name="headers">The message's headers for a dead letter's envelope.</param>
    /// <param name="ownedBody">
    /// The body, if the caller hands it over (the Kafka value capture's pooled array, with <paramref name="pooledBody"/>;
    /// a cluster record's or a replayed envelope's own array): a put keeps it. Otherwise
    /// (empty) the put's body is copied into a rented array, returned by <see cref="IngestItem.ReturnRented()"/>.
    /// </param>
    /// <param name="position">Where the message came from.</param>
    /// <param name="pooledBody">
    /// The <see cref="PayloadPool"/> array behind <paramref name="ownedBody"/>, when the caller rented it (the Kafka
    /// source's value capture): a put keeps it as its <see cref="IngestItem.Rented"/> array, with no copy; any other
    /// item returns it at once (a dead letter's envelope is a copy).
    /// </param>
    public static IngestItem Map<THeaders>(
        in IncomingMessage message, MappingRules rules, in THeaders headers, ReadOnlyMemory<byte> ownedBody, in ItemPosition position,
        byte[]? pooledBody = null)
        where THeaders : IEnvelopeHeaders
    {
        string reason;
        try
        {
            var mapped = MessageMapper.Map(message, rules);
            if (!mapped.IsDeadLetter)
            {
                if (mapped.Operation == IngestOperation.Delete)
                {
                    ReturnPooled(pooledBody);
                    return new IngestItem(IngestItemKind.Delete, mapped.Id, mapped.Collection, default, null, position);
                }

                return Put(mapped.Id, mapped.Collection, mapped.Body, ownedBody, position, pooledBody) with { BodyValidated = true };
            }

            reason = mapped.DeadLetterMessage;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            reason = $"could not be mapped: {ex.GetType().Name}: {ex.Message}";
        }

        var payload = DeadLetterPayload.Encode(message, headers, ref reason);
        ReturnPooled(pooledBody);
        return new IngestItem(IngestItemKind.DeadLetter, null, null, payload, reason, position);
    }

    /// <summary>
    /// The mapping step of a source with a transform: the script, not the <c>ingest-*</c> headers,
    /// decides what the message does. Its operations (possibly none) become one item, so they commit
    /// with the message's position; a script failure makes the message a dead letter. Never throws for a message.
    /// </summary>
    /// <param name="message">The message, viewed in the client's buffers.</param>
    /// <param name="script">The source's transform.</param>
    /// <param name="source">The source's name, given to the script.</param>
    /// <param name="fromKafka">Whether the message is a Kafka record (else an AMQP delivery).</param>
    /// <param name="rules">The source's mapping rules: the body limit and the default collection.</param>
    /// <param name="headers">The message's headers, for the script and a dead letter's envelope.</param>
    /// <param name="ownedBody">As for <see cref="Map"/>: the body is kept for a dead letter in case the store refuses the operations.</param>
    /// <param name="position">Where the message came from.</param>
    /// <param name="bodyChecked">The body is known to be one JSON value in valid UTF-8 (<see cref="Defer"/> checked it): not checked again.</param>
    public static IngestItem Transform<THeaders>(
        in IncomingMessage message, SourceScript script, string source, bool fromKafka, MappingRules rules, in THeaders headers,
        ReadOnlyMemory<byte> ownedBody, in ItemPosition position, bool bodyChecked = false)
        where THeaders : IEnvelopeHeaders
    {
        ArgumentNullException.ThrowIfNull(script);
        string reason;
        try
        {
            reason = TryTransform(message, script, source, fromKafka, rules, headers, ownedBody, position, bodyChecked, out var operations);
            if (operations is not null)
            {
                var item = Put(null, null, message.Body, ownedBody, position);
                return item with { Kind = IngestItemKind.Transformed, Operations = operations };
            }
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            reason = $"could not be transformed: {ex.GetType().Name}: {ex.Message}";
        }

        var payload = DeadLetterPayload.Encode(message, headers, ref reason);
        return new IngestItem(IngestItemKind.DeadLetter, null, null, payload, reason, position);
    }

    /// <summary>
    /// The consume thread's half of a source with a transform: captures the message (the body
    /// without a copy when the caller hands it over) for <see cref="TransformAwaiting"/>, which the
    /// batch writer runs. Never throws for a message. It also checks the body (valid UTF-8, one JSON
    /// value), as the header-driven mapping does on this thread: the writer then reads a checked body
    /// lazily instead of tokenizing all of it. A body that fails is only left unchecked, so the
    /// writer checks it again and the dead letter's reason is the one it always was (a body too large
    /// or not UTF-8 is named so before it is called not JSON).
    /// </summary>
    /// <remarks>
    /// The body is kept without a copy when the caller hands it over (<paramref name="pooledBody"/> or
    /// <paramref name="ownedBody"/>); a body the client only lends is copied once into a <see cref="PayloadPool"/>
    /// array. Either way the item's <see cref="IngestItem.Rented"/> array goes through the transform with it and
    /// back to the pool once the batch is durable.
    /// </remarks>
    public static IngestItem Defer<THeaders>(
        in IncomingMessage message, in THeaders headers, ReadOnlyMemory<byte> ownedBody, in ItemPosition position, byte[]? pooledBody = null)
        where THeaders : IEnvelopeHeaders
    {
        IReadOnlyList<KeyValuePair<string, byte[]>>? envelopeHeaders;
        try
        {
            envelopeHeaders = headers.ToEnvelopeHeaders();
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            var reason = $"could not be transformed: its headers could not be read ({ex.GetType().Name}: {ex.Message})";
            var payload = DeadLetterPayload.Encode(message, headers, ref reason);
            ReturnPooled(pooledBody);
            return new IngestItem(IngestItemKind.DeadLetter, null, null, payload, reason, position);
        }

        var captured = new SourceMessage(
            message.Destination, message.HasKey ? message.Key.ToArray() : null, message.MessageId, envelopeHeaders, message.IsTombstone);
        var bodyChecked = !message.IsTombstone && Utf8Validation.IndexOfInvalid(message.Body) < 0 && Utf8JsonToJsValue.IsOneValue(message.Body);
        if (message.IsTombstone)
        {
            ReturnPooled(pooledBody);
            return new IngestItem(IngestItemKind.AwaitingTransform, null, null, default, null, position, BodyValidated: bodyChecked, Message: captured);
        }

        var kept = Put(null, null, message.Body, ownedBody, position, pooledBody);
        return kept with { Kind = IngestItemKind.AwaitingTransform, BodyValidated = bodyChecked, Message = captured };
    }

    /// <summary>
    /// Runs the transform of an item <see cref="Defer"/> made: as <see cref="Transform"/>, the item's telemetry and its
    /// pooled body (<see cref="IngestItem.Rented"/>, which the result's payload or operations may still read) kept.
    /// Never throws for a message.
    /// </summary>
    public static IngestItem TransformAwaiting(in IngestItem item, SourceScript script, string source, bool fromKafka, MappingRules rules)
    {
        var captured = item.Message!;
        var message = new IncomingMessage(
            captured.Destination, captured.Key, captured.Key is not null, captured.MessageId, item.Payload.Span, captured.IsTombstone, headers: null);
        var transformed = Transform(message, script, source, fromKafka, rules, new EnvelopeHeaderList(captured.Headers), item.Payload, item.Position, item.BodyValidated);
        return transformed with { Producer = item.Producer, Rented = item.Rented };
    }

    // The operations, or null and why the message is a dead letter.
    private static string TryTransform<THeaders>(
        in IncomingMessage message, SourceScript script, string source, bool fromKafka, MappingRules rules, in THeaders headers,
        ReadOnlyMemory<byte> ownedBody, in ItemPosition position, bool bodyChecked, out IReadOnlyList<ScriptedOperation>? operations)
        where THeaders : IEnvelopeHeaders
    {
        operations = null;
        var body = message.Body;
        if (body.Length > rules.MaxBodyBytes)
        {
            return $"too large: the body is {body.Length} bytes; the limit is {rules.MaxBodyBytes} bytes";
        }

        var invalid = bodyChecked ? -1 : Utf8Validation.IndexOfInvalid(body);
        if (invalid >= 0)
        {
            return $"not JSON: the body is not valid UTF-8 at byte {invalid}";
        }

        var input = new SourceScriptInput(
            message.IsTombstone ? default : Stable(body, ownedBody),
            message.IsTombstone,
            message.HasKey ? Encoding.UTF8.GetString(message.Key) : null,
            headers.ToEnvelopeHeaders(),
            source,
            fromKafka,
            message.Destination,
            position.Partition,
            position.Offset,
            message.MessageId,
            rules.Collection ?? message.Destination,
            bodyChecked);
        try
        {
            operations = script.Transform(input);
            return string.Empty;
        }
        catch (ScriptException ex)
        {
            return $"transform failed: {ex.Message}";
        }
    }

    private static void ReturnPooled(byte[]? pooledBody)
    {
        if (pooledBody is not null)
        {
            PayloadPool.Bodies.Return(pooledBody);
        }
    }

    /// <summary>The body as memory that stays unchanged: the caller's own array, else a copy (the client reuses its buffer).</summary>
    private static ReadOnlyMemory<byte> Stable(ReadOnlySpan<byte> body, ReadOnlyMemory<byte> ownedBody) =>
        !ownedBody.IsEmpty && body.Length == ownedBody.Length && body.Overlaps(ownedBody.Span) ? ownedBody : body.ToArray();

    private static IngestItem Put(
        string? id, string? collection, ReadOnlySpan<byte> body, ReadOnlyMemory<byte> ownedBody, in ItemPosition position, byte[]? pooledBody = null)
    {
        if (!ownedBody.IsEmpty && body.Length == ownedBody.Length && body.Overlaps(ownedBody.Span))
        {
            // The caller's array (a pooled one comes back with the item's batch): no copy.
            return new IngestItem(IngestItemKind.Put, id, collection, ownedBody, null, position, pooledBody);
        }

        if (body.IsEmpty)
        {
            ReturnPooled(pooledBody);
            return new IngestItem(IngestItemKind.Put, id, collection, default, null, position);
        }

        // The client's buffer is only valid while its handler runs; the batch outlives it. (A pooled body that is not
        // the whole of what is kept goes back only after the copy: the body may lie in it.)
        var rented = PayloadPool.Bodies.Rent(body.Length);
        body.CopyTo(rented);
        ReturnPooled(pooledBody);
        return new IngestItem(
            IngestItemKind.Put, id, collection, rented.AsMemory(0, body.Length), null, position, rented);
    }
}
