using Confluent.Kafka;
using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Publishes CloudEvents (binary mode) to a Kafka topic with an idempotent producer and acks=all, so
/// a delivery report means every in-sync replica has the record and a retry inside the producer
/// neither duplicates nor reorders. The key (the document id by default) puts every event of a
/// document on one partition, in etag order. Batches are handed over back to back; each one's
/// delivery reports complete its own task.
/// </summary>
internal sealed class KafkaEtlDestination : IEtlDestination
{
    private readonly IProducer<byte[], byte[]?> _producer;
    private readonly string _topic;

    // The task's topic, any partition (the key's), built once rather than per record by Produce(string, ...).
    private readonly TopicPartition _anyPartition;
    private readonly EtlKafkaHeaders _headers;
    private readonly HashSet<KafkaDeliveryTracker> _pending = [];

    public KafkaEtlDestination(EtlKafkaDestination options, string taskName, string instanceSource)
    {
        var config = KafkaClientSettings.Apply(
            new ProducerConfig
            {
                LingerMs = 5,
                // A broker that is away fails the batch within this time, so the task reports it and
                // retries, instead of the producer's default of five minutes of silence.
                MessageTimeoutMs = 30_000,
                ClientId = $"ingest-etl-{taskName}",
                // The task only needs each report's error: copying every record's headers, key and
                // value back into managed memory per delivery report costs more than producing it.
                DeliveryReportFields = "status",
            },
            options.BootstrapServers!,
            options.Settings);

        // What progress rests on, after the user's settings (validation keeps them out anyway).
        config.Acks = Acks.All;
        config.EnableIdempotence = true;

        _topic = options.Topic!;
        _anyPartition = new TopicPartition(_topic, Partition.Any);
        _headers = new EtlKafkaHeaders(instanceSource);
        _producer = new ProducerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        Describe = $"kafka topic '{_topic}' at {options.BootstrapServers}";
    }

    public string Describe { get; }

    public async ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return Task.CompletedTask;
        }

        var tracker = new KafkaDeliveryTracker(messages.Count, Forget);
        lock (_pending)
        {
            _pending.Add(tracker);
        }

        // One traceparent for the batch (its span), encoded once, not per message.
        var traceParent = Telemetry.EtlTracing.CurrentTraceParent();
        foreach (var message in messages)
        {
            var record = _headers.ToRecord(message, traceParent);
            var topic = message.Destination is { } destination ? new TopicPartition(destination, Partition.Any) : _anyPartition;
            while (true)
            {
                try
                {
                    _producer.Produce(topic, record, tracker.OnDelivered);
                    break;
                }
                catch (ProduceException<byte[], byte[]?> ex) when (ex.Error.Code == ErrorCode.Local_QueueFull)
                {
                    // The producer's queue is full: let deliveries drain it.
                    await Task.Delay(5, cancellationToken).ConfigureAwait(false);
                }
                catch (ProduceException<byte[], byte[]?> ex)
                {
                    var error = new EtlDeliveryException($"Kafka refused a message for topic '{topic.Topic}': {ex.Error.Reason}", ex);
                    tracker.Fail(error);
                    throw error;
                }
            }
        }

        return tracker.Acknowledged;
    }

    private void Forget(KafkaDeliveryTracker tracker)
    {
        lock (_pending)
        {
            _pending.Remove(tracker);
        }
    }

    public ValueTask DisposeAsync()
    {
        // Unacknowledged messages are not waited for: progress was not recorded past them, so they are
        // sent again. Their batches fail now rather than never complete (the producer reports no more).
        _producer.Dispose();
        KafkaDeliveryTracker[] pending;
        lock (_pending)
        {
            pending = [.. _pending];
            _pending.Clear();
        }

        foreach (var tracker in pending)
        {
            tracker.Fail(new EtlDeliveryException("The Kafka producer was closed before the broker acknowledged every message."));
        }

        return ValueTask.CompletedTask;
    }
}
