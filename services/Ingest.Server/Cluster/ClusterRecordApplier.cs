using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Cluster;

/// <summary>
/// One cluster record on its way into this node's store, on the applier's consume thread. <c>doc</c> records become
/// puts and deletes, <c>source</c> records are mapped by their RabbitMQ source's rules; both go to the batch writer,
/// whose commits store the cluster topic's position with the writes. Any other kind goes to its
/// <see cref="IClusterRecordHandler"/>: everything before it is made durable first, then the handler runs, then a
/// write-nothing item carries the record's position into the next commit (a crash in between applies the record
/// again, which handlers tolerate). A conditional write waits for what is before it too, then compares versions.
/// </summary>
internal sealed partial class ClusterRecordApplier(
    string node, DocumentStore store, BatchWriter writer, KafkaPartitionTable partitions, KafkaConnectionStatus connection, KafkaFlowControl flow,
    IReadOnlyDictionary<string, IClusterRecordHandler> handlers, IReadOnlyDictionary<string, ClusterSourceMapping> sources, ClusterOutcomes outcomes,
    ILogger logger, CancellationToken abandon) : IKafkaRecordHandler
{
    private static readonly IReadOnlyList<ScriptedOperation> NoOperations = [];

    private readonly KafkaHeadersView _headers = new();

    public bool WriterStopped => writer.IsStopped;

    public void Handle(IConsumer<byte[]?, byte[]?> consumer, ConsumeResult<byte[]?, byte[]?> result)
    {
        connection.RecordContact();
        var message = result.Message;
        var partition = result.Partition.Value;
        var state = partitions.Get(result.Topic, partition, out var epoch);
        var position = new ItemPosition(state.Origin, partition, result.Offset.Value, epoch, state.Topic);
        var clusterPosition = new ClusterPosition(partition, result.Offset.Value);
        _headers.Headers = message.Headers is { Count: > 0 } present ? present : null;
        try
        {
            var kind = Header(ClusterHeaders.Kind);
            var item = kind switch
            {
                "doc" => MapDocument(consumer, message.Value, position, clusterPosition),
                "source" => MapForwarded(message.Value, position),
                null => DeadLetter(message.Value, position, $"a cluster record without the {ClusterHeaders.Kind} header"),
                _ => ApplyHandled(consumer, kind, message, position, clusterPosition),
            };
            flow.WaitFor(consumer, writer.AddAsync(item, abandon));
        }
        catch
        {
            // Not applied: read it again rather than let a later offset become durable past it.
            consumer.Seek(result.TopicPartitionOffset);
            throw;
        }
        finally
        {
            _headers.Headers = null;
        }
    }

    private IngestItem MapDocument(IConsumer<byte[]?, byte[]?> consumer, byte[]? body, in ItemPosition position, ClusterPosition clusterPosition)
    {
        var id = Header(ClusterHeaders.Key);
        if (string.IsNullOrEmpty(id))
        {
            return DeadLetter(body, position, $"a doc record without the {ClusterHeaders.Key} header");
        }

        if (Header(ClusterHeaders.IfMatch) is { } expected)
        {
            // The version to compare with is the one every write before this record left: make those durable first.
            // Conditional writes are rare, so the pause in batching is worth its exactness.
            WaitForDurable(consumer);
            if (!DocumentVersionIdentity.Matches(store.Get(id), expected))
            {
                LogConditionFailed(logger, id, clusterPosition.ToString());
                RecordFailure(clusterPosition, $"the document '{id}' has changed since the version If-Match named");
                return Passed(position);
            }
        }

        if (body is null || body.Length == 0)
        {
            return new IngestItem(IngestItemKind.Delete, id, null, default, null, position);
        }

        var collection = Header(ClusterHeaders.Collection);
        if (string.IsNullOrEmpty(collection))
        {
            return DeadLetter(body, position, $"a doc put without the {ClusterHeaders.Collection} header");
        }

        // Confluent allocates a fresh array per record: the put keeps it.
        return new IngestItem(IngestItemKind.Put, id, collection, body, null, position);
    }

    private IngestItem MapForwarded(byte[]? body, in ItemPosition position)
    {
        var name = Header(ClusterHeaders.Source);
        if (name is null || !sources.TryGetValue(name, out var source))
        {
            return DeadLetter(body, position, $"a message forwarded by RabbitMQ source '{name}', which this node does not have (check that every node has the same Ingest:Sources)");
        }

        var queue = Header(ClusterHeaders.Queue) ?? source.DefaultQueue;
        var message = IncomingMessage.FromAmqp(queue, Header(ClusterHeaders.MessageId), body, _headers);
        if (source.Script is null)
        {
            return IngestItemMapper.Map(message, source.Rules, _headers, body ?? default(ReadOnlyMemory<byte>), position);
        }

        // The transform runs here rather than in the writer: the writer's transform belongs to one source, and the
        // cluster topic carries many. Forwarded messages are RabbitMQ's rate, not Kafka's.
        var deferred = IngestItemMapper.Defer(message, _headers, body ?? default(ReadOnlyMemory<byte>), position);
        return deferred.Kind == IngestItemKind.AwaitingTransform
            ? IngestItemMapper.TransformAwaiting(deferred, source.Script, source.Name, fromKafka: false, source.Rules)
            : deferred;
    }

    private IngestItem ApplyHandled(IConsumer<byte[]?, byte[]?> consumer, string kind, Message<byte[]?, byte[]?> message, in ItemPosition position, ClusterPosition clusterPosition)
    {
        if (!handlers.TryGetValue(kind, out var handler))
        {
            LogNoHandler(logger, kind, clusterPosition.ToString());
            RecordFailure(clusterPosition, $"this node has nothing that applies cluster records of kind '{kind}'");
            return Passed(position);
        }

        WaitForDurable(consumer);
        var record = new ClusterRecord(kind, Header(ClusterHeaders.Key) ?? string.Empty, message.Value ?? [], KafkaHeadersView.ToList(message.Headers) ?? []);
        try
        {
            flow.WaitFor(consumer, new ValueTask(handler.ApplyAsync(record, clusterPosition, abandon)));
        }
        catch (Exception ex) when (ex is not OperationCanceledException || !abandon.IsCancellationRequested)
        {
            // Every node refuses the same record the same way (handlers are deterministic), so passing it keeps the
            // replicas equal; retrying would stop this node's log for good.
            LogHandlerFailed(logger, kind, clusterPosition.ToString(), ex.Message, ex);
            RecordFailure(clusterPosition, ex.Message);
        }

        return Passed(position);
    }

    private void WaitForDurable(IConsumer<byte[]?, byte[]?> consumer) => flow.WaitFor(consumer, new ValueTask(writer.DrainAsync(abandon)));

    private void RecordFailure(ClusterPosition position, string reason)
    {
        if (string.Equals(Header(ClusterHeaders.Node), node, StringComparison.Ordinal))
        {
            outcomes.RecordFailure(position, reason);
        }
    }

    private string? Header(string name) => _headers.TryGetValue(name, out var value) ? Encoding.UTF8.GetString(value) : null;

    // Writes nothing; its position commits with the batch it lands in.
    private static IngestItem Passed(in ItemPosition position) =>
        new(IngestItemKind.Transformed, null, null, default, null, position, Operations: NoOperations);

    private static IngestItem DeadLetter(byte[]? body, in ItemPosition position, string reason) =>
        new(IngestItemKind.DeadLetter, null, null, body ?? default(ReadOnlyMemory<byte>), reason, position);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Cluster: the conditional write of '{Id}' at {Position} is skipped: the document has changed")]
    private static partial void LogConditionFailed(ILogger logger, string id, string position);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster: no handler for records of kind '{Kind}' (at {Position}); passed over")]
    private static partial void LogNoHandler(ILogger logger, string kind, string position);

    [LoggerMessage(Level = LogLevel.Error, Message = "Cluster: applying the '{Kind}' record at {Position} failed ({Reason}); passed over")]
    private static partial void LogHandlerFailed(ILogger logger, string kind, string position, string reason, Exception exception);
}
