using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary>
/// Maps a dead letter's message again as its source would, into a write batch: what <c>POST /dead-letters/{id}/replay</c>
/// writes on a single node, and what every node writes when it applies a <c>dead-letter</c> cluster record.
/// </summary>
internal static class DeadLetterReplay
{
    /// <summary>
    /// Maps the message through the source's transform if it has one (all its operations go into the batch; the answer
    /// names the first, or "skip" when there are none), else through its rules. A non-empty <paramref name="fix"/>
    /// replaces the stored body. The documents record <paramref name="produced"/>: in cluster mode the position of the
    /// <c>dead-letter</c> record, the same on every node; on a single node none, as for any write over HTTP.
    /// </summary>
    public static bool TryMap(
        DeadLetterEnvelope envelope, ReadOnlySpan<byte> fix, IngestSource? source, SourcePosition position, WriteBatch batch,
        out (string Id, string Collection, string Operation) mapped, out string? reason, LogPosition? produced = null)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        ArgumentNullException.ThrowIfNull(batch);

        // An empty request body means "replay as stored".
        var replaceBody = fix.Length > 0;
        var message = envelope.ToIncomingMessage(fix, replaceBody);
        var headers = new EnvelopeHeaderList(envelope.Headers);
        var itemPosition = new ItemPosition(position.Source, position.Partition, position.NextOffset, Epoch: 0);
        var rules = source?.Rules ?? new MappingRules();
        var item = source?.Script is { } script
            ? IngestItemMapper.Transform(message, script, source.Name, source.Kind == "kafka", rules, headers, default, itemPosition)
            : IngestItemMapper.Map(message, rules, headers, replaceBody ? default : envelope.Body, itemPosition);
        try
        {
            switch (item.Kind)
            {
                case IngestItemKind.Put:
                    batch.Put(item.Id!, item.Collection!, item.Payload.Span, produced);
                    mapped = (item.Id!, item.Collection!, IngestOperations.PutName);
                    break;
                case IngestItemKind.Delete:
                    batch.Delete(item.Id!, produced);
                    mapped = (item.Id!, item.Collection!, IngestOperations.DeleteName);
                    break;
                case IngestItemKind.Transformed:
                    var operations = item.Operations!;
                    foreach (var operation in operations)
                    {
                        _ = operation.Kind == IngestItemKind.Delete ? batch.Delete(operation.Id, produced) : batch.Put(operation.Id, operation.Collection!, operation.Body, produced);
                    }

                    mapped = operations.Count == 0 ? (string.Empty, string.Empty, "skip")
                        : operations[0].Kind == IngestItemKind.Delete ? (operations[0].Id, string.Empty, IngestOperations.DeleteName)
                        : (operations[0].Id, operations[0].Collection!, IngestOperations.PutName);
                    break;
                default:
                    mapped = default;
                    reason = item.DeadLetterReason;
                    return false;
            }
        }
        finally
        {
            // The batch copied the body.
            item.ReturnRented();
        }

        reason = null;
        return true;
    }

    /// <summary>
    /// The message a replay maps, as an envelope: the stored one, or with <paramref name="fix"/> as its body (no longer a
    /// tombstone). Mapping it with no fix maps what mapping the stored envelope with the fix maps; a cluster record
    /// carries it so that every node replays the same message, whether or not it has the dead letter.
    /// </summary>
    public static byte[] MessageToReplay(DeadLetterEnvelope envelope, ReadOnlyMemory<byte> stored, ReadOnlySpan<byte> fix)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        return fix.Length == 0
            ? stored.ToArray()
            : DeadLetterEnvelope.Encode(envelope.Destination, envelope.Key, envelope.Key is not null, envelope.MessageId, envelope.Headers, fix, isTombstone: false);
    }
}
