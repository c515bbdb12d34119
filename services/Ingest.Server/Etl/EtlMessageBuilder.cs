using Ingest.Documents;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// Turns changes into messages: a put becomes the transform's messages (or the document itself
/// when the task has no transform), a tombstone a deleted event keyed by the document id (a delete
/// has no body for a transform to read). Ids follow the change's log position when it has one (see
/// <see cref="EtlMessage.EventId"/>); fan-out messages get <c>#{n}</c> after it so each stays unique.
/// </summary>
internal sealed class EtlMessageBuilder(EtlTaskDefinition definition, EtlScript? script)
{
    public EtlPreparedBatch Build(IReadOnlyList<Document> changes)
    {
        var messages = new List<EtlMessage>(changes.Count);
        var failures = new List<(string, string, long, string)>();
        foreach (var change in changes)
        {
            if (change.IsDeleted)
            {
                // A tombstone with an expiry is the expiration task's: it carries the expired version's position.
                messages.Add(new EtlMessage(
                    change.Id, change.Etag, change.Collection, change.LastModified, true, default, -1, change.Id, DefaultDestination(null), [],
                    change.Position, Expired: change.ExpiresAt is not null));
                continue;
            }

            if (script is null)
            {
                messages.Add(new EtlMessage(
                    change.Id, change.Etag, change.Collection, change.LastModified, false, change.Body, -1, change.Id, DefaultDestination(change), [], change.Position));
                continue;
            }

            IReadOnlyList<EtlScriptOutput> outputs;
            try
            {
                outputs = script.Transform(change);
            }
            catch (ScriptException ex)
            {
                failures.Add((change.Id, change.Collection, change.Etag, ex.Message));
                continue;
            }

            for (var i = 0; i < outputs.Count; i++)
            {
                var output = outputs[i];
                messages.Add(new EtlMessage(
                    change.Id, change.Etag, change.Collection, change.LastModified, false, output.Body, outputs.Count > 1 ? i : -1,
                    output.Key ?? change.Id, output.Destination ?? DefaultDestination(change), output.Headers, change.Position));
            }
        }

        return new EtlPreparedBatch(messages, failures);
    }

    /// <summary>Kafka: null (the task's topic); RabbitMQ: the routing key, from the document when a path is set.</summary>
    private string? DefaultDestination(Document? document)
    {
        if (definition.RabbitMq is not { } rabbit)
        {
            return null;
        }

        if (document is not null && rabbit.RoutingKeyPath is { } path)
        {
            return DocumentPropertyPath.Read(document.Body, path) ?? rabbit.RoutingKey;
        }

        return rabbit.RoutingKey;
    }
}
