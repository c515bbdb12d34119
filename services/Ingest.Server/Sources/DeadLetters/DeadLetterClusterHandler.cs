using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Cluster;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary>
/// Applies <c>dead-letter</c> cluster records: a replay or a delete made on one node, applied on every node to its own
/// dead letters with the node-independent <see cref="DeadLetterIdentity"/> (headers), since dead-letter ids are local.
/// <list type="bullet">
/// <item><c>delete</c>: deletes this node's dead letters with that identity; none is fine (this node never had it).</item>
/// <item><c>replay</c>: the body is the message to replay (<see cref="DeadLetterReplay.MessageToReplay"/>, the fix
/// already in it). Every node maps it with the source's rules and writes the documents together with the deletion of
/// its dead letters with that identity, in one batch, as single mode does. It writes the documents even when it has no
/// such dead letter (one made by another node's own RabbitMQ consumer, or already expired here): the documents must be
/// the same on every node, and the dead letter is only this node's note of a message it could not map.</item>
/// </list>
/// Idempotent: applied again, a delete finds nothing and a replay writes the same documents again. A replay this node
/// cannot map or write throws (the applier logs it and passes on); the receiving node answers 422 with the reason.
/// </summary>
internal sealed class DeadLetterClusterHandler(DocumentStore store, IngestionService ingestion, ClusterOptions options) : IClusterRecordHandler
{
    public const string RecordKind = "dead-letter";
    public const string Operation = "ingest-dead-letter-op";

    public string Kind => RecordKind;

    /// <summary>What this node's own replays wrote, for their answers (as single mode answers).</summary>
    public ClusterHandlerOutcomes<ReplayResponse> Replays { get; } = new(options);

    public async Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (!DeadLetterIdentity.TryRead(record, out var identity))
        {
            throw new InvalidOperationException($"The dead-letter record at {position} does not name a dead letter (its {DeadLetterIdentity.OriginHeader} headers are missing or malformed).");
        }

        var ids = identity.FindIn(store);
        var batch = new WriteBatch();
        var operation = ClusterRecordHeaders.Text(record, Operation);
        if (operation == "delete")
        {
            if (ids.Count > 0)
            {
                foreach (var id in ids)
                {
                    batch.DeleteDeadLetter(id);
                }

                await store.WriteAsync(batch).ConfigureAwait(false);
            }

            return;
        }

        if (operation != "replay")
        {
            throw new InvalidOperationException($"The dead-letter record at {position} has operation '{operation}'; expected 'replay' or 'delete'.");
        }

        if (!DeadLetterEnvelope.TryDecode(record.Body.Span, out var envelope, out var error))
        {
            throw new InvalidOperationException($"The dead letter replayed at {position} does not hold a whole message ({error}).");
        }

        var source = ingestion.Find(SourceOrigin.SourceName(identity.Origin));
        var at = new SourcePosition(identity.Origin, identity.Partition, identity.Offset);
        // The documents record this record's position in the cluster topic: one identity for their version on every node.
        var produced = new LogPosition(options.Topic, position.Partition, position.Offset);
        if (!DeadLetterReplay.TryMap(envelope, default, source, at, batch, out var mapped, out var reason, produced))
        {
            throw new InvalidOperationException($"The message still does not map to a document: {reason}");
        }

        foreach (var id in ids)
        {
            batch.DeleteDeadLetter(id);
        }

        WriteResult result;
        try
        {
            result = await store.WriteAsync(batch).ConfigureAwait(false);
        }
        catch (InvalidDocumentException ex)
        {
            throw new InvalidOperationException($"The store rejected the replayed message: {ex.Message}", ex);
        }

        Replays.Keep(record, position, new ReplayResponse(mapped.Id, mapped.Collection, result.LastEtag == 0 ? null : result.LastEtag, mapped.Operation));
    }
}
