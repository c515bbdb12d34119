using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.Messages;

namespace Ingest.Cli.Publishing;

/// <summary>
/// Publishes documents to a Kafka topic with an idempotent producer (acks=all), keyed by document id
/// so that every change to a document lands on the same partition, in order.
/// </summary>
internal sealed class KafkaPublisher : IDocumentPublisher
{
    private readonly string _bootstrapServers;
    private readonly string _topic;
    private readonly TimeSpan _deliveryTimeout;

    public KafkaPublisher(string bootstrapServers, string topic, TimeSpan deliveryTimeout)
    {
        ArgumentException.ThrowIfNullOrEmpty(bootstrapServers);
        ArgumentException.ThrowIfNullOrEmpty(topic);
        _bootstrapServers = bootstrapServers;
        _topic = topic;
        _deliveryTimeout = deliveryTimeout;
    }

    public string Destination => $"kafka topic {_topic}";

    public Task PublishAsync(IReadOnlyList<InputDocument> documents, PublishSettings settings, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(documents);
        ArgumentNullException.ThrowIfNull(settings);

        // The client's produce and flush calls block; keep them off the caller's thread.
        return Task.Run(() => Publish(documents, settings, cancellationToken), cancellationToken);
    }

    private void Publish(IReadOnlyList<InputDocument> documents, PublishSettings settings, CancellationToken cancellationToken)
    {
        var config = new ProducerConfig
        {
            BootstrapServers = _bootstrapServers,
            ClientId = "ingest-cli",
            EnableIdempotence = true,
            Acks = Acks.All,

            // Bounds the wait for each delivery report; librdkafka's default is five minutes.
            MessageTimeoutMs = (int)Math.Min(_deliveryTimeout.TotalMilliseconds, int.MaxValue),
            LingerMs = 5,
        };

        var delivered = 0;
        var failures = new List<(InputDocument Document, Error Error)>();
        string? lastBrokerError = null;
        Error? abortReason = null;
        using var abort = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);

        using var producer = new ProducerBuilder<string, byte[]>(config)
            // librdkafka logs to stderr by default; what matters reaches the error handler.
            .SetLogHandler((_, _) => { })
            .SetErrorHandler((_, error) =>
            {
                // librdkafka retries forever on its own; a command-line user would rather hear at once
                // that no broker answers, or that the idempotent producer cannot go on.
                if (error.IsFatal || error.Code == ErrorCode.Local_AllBrokersDown)
                {
                    abortReason ??= error;
                    abort.Cancel();
                }
                else
                {
                    lastBrokerError = error.Reason;
                }
            })
            .Build();

        var operation = settings.Operation == IngestOperation.Delete ? Encoding.UTF8.GetBytes(IngestOperations.DeleteName) : null;
        var collection = settings.Collection is null ? null : Encoding.UTF8.GetBytes(settings.Collection);
        try
        {
            foreach (var document in documents)
            {
                var message = new Message<string, byte[]>
                {
                    Key = document.Id,

                    // A delete is a tombstone: no value, as Kafka's log compaction expects.
                    Value = operation is null ? document.Body.ToArray() : null!,
                    Headers = Headers(document.Id, collection, operation),
                };

                Produce(producer, message, report =>
                {
                    // Delivery reports arrive one at a time on the client's poll thread.
                    if (report.Error.IsError)
                    {
                        failures.Add((document, report.Error));
                    }
                    else
                    {
                        delivered++;
                        settings.Progress?.Acknowledged(1, document.Body.Length);
                    }
                }, abort.Token);
            }

            producer.Flush(abort.Token);
        }
        catch (OperationCanceledException) when (abortReason is not null && !cancellationToken.IsCancellationRequested)
        {
            var reason = abortReason.Code == ErrorCode.Local_AllBrokersDown
                ? $"cannot reach kafka at {_bootstrapServers}: {lastBrokerError ?? abortReason.Reason}"
                : $"kafka producer failed: {abortReason.Reason}";
            throw new CommandFailedException(ExitCodes.Failure, $"{reason}; {Volatile.Read(ref delivered)} of {documents.Count} documents were delivered");
        }

        if (failures.Count > 0)
        {
            var (document, error) = failures[0];
            var detail = lastBrokerError is null ? string.Empty : $" (last broker error: {lastBrokerError})";
            throw new CommandFailedException(
                ExitCodes.Failure,
                $"{failures.Count} of {documents.Count} documents were not delivered to {Destination}; "
                + $"the first, {document}, failed with: {error.Reason}{detail}");
        }
    }

    private void Produce(IProducer<string, byte[]> producer, Message<string, byte[]> message, Action<DeliveryReport<string, byte[]>> onDelivery, CancellationToken cancellationToken)
    {
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            try
            {
                producer.Produce(_topic, message, onDelivery);
                return;
            }
            catch (ProduceException<string, byte[]> ex) when (ex.Error.Code == ErrorCode.Local_QueueFull)
            {
                // The local send queue is full: let deliveries drain it, then try again.
                producer.Poll(TimeSpan.FromMilliseconds(100));
            }
        }
    }

    private static Headers Headers(string id, byte[]? collection, byte[]? operation)
    {
        var headers = new Headers
        {
            { IngestHeaders.Id, Encoding.UTF8.GetBytes(id) },
            { PublishTraceContext.Header, Encoding.UTF8.GetBytes(PublishTraceContext.NextTraceParent()) },
        };
        if (collection is not null)
        {
            headers.Add(IngestHeaders.Collection, collection);
        }

        if (operation is not null)
        {
            headers.Add(IngestHeaders.Operation, operation);
        }

        return headers;
    }
}
