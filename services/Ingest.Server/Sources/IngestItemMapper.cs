using System.Buffers;
using Ingest.Contracts.Mapping;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources;

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
    /// The body, if the caller hands it over (Kafka's per-record array): a put keeps it. Otherwise
    /// (empty) the put's body is copied into a rented array, returned by <see cref="IngestItem.ReturnRented"/>.
    /// </param>
    /// <param name="position">Where the message came from.</param>
    public static IngestItem Map<THeaders>(
        in IncomingMessage message, MappingRules rules, in THeaders headers, ReadOnlyMemory<byte> ownedBody, in ItemPosition position)
        where THeaders : IEnvelopeHeaders
    {
        string reason;
        try
        {
            var mapped = MessageMapper.Map(message, rules);
            if (!mapped.IsDeadLetter)
            {
                return mapped.Operation == IngestOperation.Delete
                    ? new IngestItem(IngestItemKind.Delete, mapped.Id, mapped.Collection, default, null, position.Origin, position.Partition, position.Offset, position.Epoch)
                    : Put(mapped.Id, mapped.Collection, mapped.Body, ownedBody, position);
            }

            reason = mapped.DeadLetterMessage;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            reason = $"could not be mapped: {ex.GetType().Name}: {ex.Message}";
        }

        var payload = DeadLetterPayload.Encode(message, headers, ref reason);
        return new IngestItem(IngestItemKind.DeadLetter, null, null, payload, reason, position.Origin, position.Partition, position.Offset, position.Epoch);
    }

    private static IngestItem Put(string id, string collection, ReadOnlySpan<byte> body, ReadOnlyMemory<byte> ownedBody, in ItemPosition position)
    {
        if (!ownedBody.IsEmpty && body.Length == ownedBody.Length && body.Overlaps(ownedBody.Span))
        {
            return new IngestItem(IngestItemKind.Put, id, collection, ownedBody, null, position.Origin, position.Partition, position.Offset, position.Epoch);
        }

        // The client's buffer is only valid while its handler runs; the batch outlives it.
        var rented = ArrayPool<byte>.Shared.Rent(body.Length);
        body.CopyTo(rented);
        return new IngestItem(
            IngestItemKind.Put, id, collection, rented.AsMemory(0, body.Length), null, position.Origin, position.Partition, position.Offset, position.Epoch, rented);
    }
}
