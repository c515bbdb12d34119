using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.CloudEvents;
using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Publishes CloudEvents (binary mode) to a Kafka topic with an idempotent producer and acks=all, so
/// a delivery report means every in-sync replica has the record and a retry inside the producer
/// neither duplicates nor reorders. The key (the document id by default) puts every event of a
/// document on one partition, in etag order.
/// </summary>
internal sealed class KafkaEtlDestination : IEtlDestination
{
    private readonly IProducer<byte[], byte[]?> _producer;
    private readonly string _topic;

    public KafkaEtlDestination(EtlKafkaDestination options, string taskName)
    {
        var config = KafkaClientSettings.Apply(
            new ProducerConfig
            {
                LingerMs = 5,
                // A broker that is away fails the batch within this time, so the task reports it and
                // retries, instead of the producer's default of five minutes of silence.
                MessageTimeoutMs = 30_000,
                ClientId = $"ingest-etl-{taskName}",
            },
            options.BootstrapServers!,
            options.Settings);

        // What progress rests on, after the user's settings (validation keeps them out anyway).
        config.Acks = Acks.All;
        config.EnableIdempotence = true;

        _topic = options.Topic!;
        _producer = new ProducerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        Describe = $"kafka topic '{_topic}' at {options.BootstrapServers}";
    }

    public string Describe { get; }

    public async Task PublishAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return;
        }

        var pending = messages.Count;
        Error? firstError = null;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        void OnDelivered(DeliveryReport<byte[], byte[]?> report)
        {
            if (report.Error.IsError)
            {
                Interlocked.CompareExchange(ref firstError, report.Error, null);
            }

            if (Interlocked.Decrement(ref pending) == 0)
            {
                done.TrySetResult();
            }
        }

        foreach (var message in messages)
        {
            var kafkaMessage = ToKafkaMessage(message);
            var topic = message.Destination ?? _topic;
            while (true)
            {
                try
                {
                    _producer.Produce(topic, kafkaMessage, OnDelivered);
                    break;
                }
                catch (ProduceException<byte[], byte[]?> ex) when (ex.Error.Code == ErrorCode.Local_QueueFull)
                {
                    // The producer's queue is full: let deliveries drain it.
                    await Task.Delay(5, cancellationToken).ConfigureAwait(false);
                }
                catch (ProduceException<byte[], byte[]?> ex)
                {
                    throw new EtlDeliveryException($"Kafka refused a message for topic '{topic}': {ex.Error.Reason}", ex);
                }
            }
        }

        await done.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        if (firstError is { } error)
        {
            throw new EtlDeliveryException($"Kafka did not acknowledge every message: {error.Code}: {error.Reason}");
        }
    }

    private static Message<byte[], byte[]?> ToKafkaMessage(EtlMessage message)
    {
        var binary = KafkaCloudEventBinding.Encode(message.Event);
        var headers = new Headers();
        foreach (var (name, value) in binary.Headers)
        {
            headers.Add(name, value);
        }

        Telemetry.EtlTracing.AddTraceParent(headers);
        foreach (var (name, value) in message.Headers)
        {
            headers.Add(name, Encoding.UTF8.GetBytes(value));
        }

        return new Message<byte[], byte[]?> { Key = Encoding.UTF8.GetBytes(message.Key), Value = binary.Value, Headers = headers };
    }

    public ValueTask DisposeAsync()
    {
        // Unacknowledged messages are not waited for: progress was not recorded past them, so they are sent again.
        _producer.Dispose();
        return ValueTask.CompletedTask;
    }
}
