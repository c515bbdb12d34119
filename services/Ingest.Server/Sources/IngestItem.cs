namespace Ingest.Server.Sources;

/// <summary>
/// One consumed message, mapped, on its way through the batcher to the store. A struct, so a
/// batch of them is one array; the payload is the client's buffer when the client hands over
/// ownership, or a copy rented from <see cref="PayloadPool"/> (Kafka, RabbitMQ) returned after the batch is written.
/// </summary>
/// <param name="Kind">Put, delete, dead letter, or a transform's operations.</param>
/// <param name="Id">The document id (puts and deletes).</param>
/// <param name="Collection">The collection (puts and deletes).</param>
/// <param name="Payload">The JSON body of a put, a dead letter's envelope, or a transformed message's body (kept for a dead letter if the store refuses its operations).</param>
/// <param name="DeadLetterReason">Why the message is a dead letter.</param>
/// <param name="Position">Where the message came from: origin, partition, offset (or delivery tag) and the epoch stale items are dropped by.</param>
/// <param name="Rented">A pooled array backing <paramref name="Payload"/>, returned once the batch is written.</param>
/// <param name="Operations">The operations of a <see cref="IngestItemKind.Transformed"/> item.</param>
/// <param name="Producer">The producer's span from the message's W3C <c>traceparent</c> header, when it has one and spans are recorded.</param>
/// <param name="BodyValidated">
/// The mapper checked the put's body as the store would (UTF-8, one JSON object, depth within the
/// JSON reader's default 64), so the store does not read it again. On an
/// <see cref="IngestItemKind.AwaitingTransform"/> item: the body is valid UTF-8 holding one JSON value
/// (any, within the transform reader's depth), so the transform reads it without checking it again.
/// </param>
/// <param name="Message">The message of an <see cref="IngestItemKind.AwaitingTransform"/> item.</param>
public readonly record struct IngestItem(
    IngestItemKind Kind,
    string? Id,
    string? Collection,
    ReadOnlyMemory<byte> Payload,
    string? DeadLetterReason,
    ItemPosition Position,
    byte[]? Rented = null,
    IReadOnlyList<ScriptedOperation>? Operations = null,
    System.Diagnostics.ActivityContext Producer = default,
    bool BodyValidated = false,
    SourceMessage? Message = null)
{
    /// <summary>What the item weighs for the batcher's byte limit.</summary>
    public int SizeBytes => Payload.Length + ((Id?.Length ?? 0) * 2) + 64 + OperationsSizeBytes();

    /// <summary>Returns the pooled array behind the payload, if any; the item must not be used afterwards.</summary>
    public void ReturnRented()
    {
        if (Rented is { } rented)
        {
            PayloadPool.Bodies.Return(rented);
        }
    }

    /// <summary>Returns the pooled arrays of every item; none of them may be used afterwards.</summary>
    public static void ReturnRented(ReadOnlySpan<IngestItem> items)
    {
        for (var i = 0; i < items.Length; i++)
        {
            items[i].ReturnRented();
        }
    }

    private int OperationsSizeBytes()
    {
        var size = 0;
        if (Operations is { } operations)
        {
            for (var i = 0; i < operations.Count; i++)
            {
                size += operations[i].SizeBytes;
            }
        }

        return size;
    }
}
