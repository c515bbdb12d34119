using Confluent.Kafka;
using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Publishes CloudEvents (binary mode) to a Kafka topic with an idempotent producer and acks=all, so
/// a delivery report means every in-sync replica has the record and a retry inside the producer
/// neither duplicates nor reorders. The key (the document id by default) puts every event of a
/// document on one partition (librdkafka's default partitioner), in etag order. Batches are handed
/// over back to back; each one's delivery reports complete its own task. Records go to librdkafka
/// through <see cref="NativeKafkaProducer"/>, one native call per record with all its headers.
/// </summary>
internal sealed class KafkaEtlDestination : IEtlDestination
{
    private readonly NativeKafkaProducer _producer;
    private readonly string _topic;
    private readonly nint _topicHandle;
    private readonly EtlKafkaHeaders _headers;
    private readonly KafkaRecordBuilder _record;
    private readonly HashSet<KafkaDeliveryTracker> _pending = [];
    private readonly IReadOnlyDictionary<string, string> _settings;
    private readonly Func<int, string> _describeFailure;

    public KafkaEtlDestination(EtlKafkaSettings options, string taskName, string instanceSource, ConfiguredSecrets secrets)
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
            secrets.Resolve(options.Settings));

        // What progress rests on, after the user's settings (validation keeps them out anyway).
        config.Acks = Acks.All;
        config.EnableIdempotence = true;

        _topic = options.Topic!;
        _settings = options.Settings;
        _describeFailure = DescribeFailure;
        _producer = new NativeKafkaProducer(config, $"etl-{taskName}-kafka");
        try
        {
            _topicHandle = _producer.Topic(_topic);
        }
        catch
        {
            _producer.Dispose();
            throw;
        }

        // Native buffers only once the producer stands, so a refused setting leaves nothing behind.
        _record = new KafkaRecordBuilder();
        _headers = new EtlKafkaHeaders(instanceSource);
        Describe = $"kafka topic '{_topic}' at {options.BootstrapServers}";
    }

    public string Describe { get; }

    public async ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return Task.CompletedTask;
        }

        nuint valueBytes = 0;
        for (var i = 0; i < messages.Count; i++)
        {
            valueBytes += (nuint)messages[i].Body.Length;
        }

        var tracker = new KafkaDeliveryTracker(messages.Count, valueBytes, Forget, _describeFailure);
        lock (_pending)
        {
            _pending.Add(tracker);
        }

        // One traceparent for the batch (its span), encoded once, not per message.
        var traceParent = Telemetry.EtlTracing.CurrentTraceParent();
        var sent = 0;
        nuint valueOffset = 0;
        try
        {
            while (sent < messages.Count)
            {
                var message = messages[sent];
                var topic = message.Destination is { } destination ? TopicOf(destination) : _topicHandle;
                var code = Produce(topic, message, traceParent, tracker, valueOffset, out var error);
                if (code == 0)
                {
                    sent++;
                    valueOffset += (nuint)message.Body.Length;
                }
                else if (code == LibRdKafka.ErrQueueFull)
                {
                    // The producer's queue is full: let deliveries drain it.
                    await Task.Delay(5, cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    throw new EtlDeliveryException($"Kafka refused a message for topic '{message.Destination ?? _topic}': {error}");
                }
            }
        }
        catch (Exception ex)
        {
            tracker.SenderDone(messages.Count - sent, ex);
            throw;
        }

        tracker.SenderDone(0);
        return tracker.Acknowledged;
    }

    private nint TopicOf(string topic)
    {
        try
        {
            return _producer.Topic(topic);
        }
        catch (ArgumentException ex)
        {
            throw new EtlDeliveryException($"Kafka refused a message for topic '{topic}': {ex.Message}", ex);
        }
    }

    /// <summary>
    /// Hands one message to the producer, its body copied to the batch's values at <paramref name="valueOffset"/>:
    /// librdkafka reads it there until the delivery report, rather than copying each record into a heap block of its own.
    /// (Reading the bodies in place from the task's read buffer instead, pinned, saved this copy but doubled the
    /// time in librdkafka's mallocs: without this block's large allocation per batch, glibc no longer consolidates the
    /// small blocks librdkafka frees on its poll thread, and its allocator walked ever longer free lists.)
    /// </summary>
    private unsafe int Produce(nint topic, EtlMessage message, byte[]? traceParent, KafkaDeliveryTracker tracker, nuint valueOffset, out string? error)
    {
        _record.Start(topic, tracker.Opaque, EtlKafkaHeaders.ScratchBytes(message, traceParent?.Length ?? 0));
        _headers.Write(_record, message, traceParent);
        if (message.Deleted)
        {
            _record.Tombstone();
        }
        else
        {
            var body = message.Body.Span;
            var value = tracker.Values + valueOffset;
            body.CopyTo(new Span<byte>(value, body.Length));
            _record.ValueInPlace(value, body.Length);
        }

        return _producer.Produce(_record, out error);
    }

    /// <summary>A failed batch's text: the refused login or failed TLS handshake behind it when there is one, which the report's own code does not say.</summary>
    private string DescribeFailure(int code)
    {
        var error = new Error((ErrorCode)code);
        var reported = $"Kafka did not acknowledge every message: {error.Code}: {error.Reason}";
        return _producer.CredentialFailure is { } cause
            ? $"{KafkaClientError.Describe(cause.Code, cause.Reason, _settings)} (the batch was not delivered: {error.Code})"
            : reported;
    }

    private void Forget(KafkaDeliveryTracker tracker)
    {
        // Once per batch, not per record: a batch acknowledged in full means the login and the handshake work again.
        if (tracker.Acknowledged.IsCompletedSuccessfully && _producer.CredentialFailure is not null)
        {
            _producer.ClearCredentialFailure();
        }

        lock (_pending)
        {
            _pending.Remove(tracker);
        }
    }

    public ValueTask DisposeAsync()
    {
        // Unacknowledged messages are not waited for: progress was not recorded past them, so they are
        // sent again. The producer reports them failed as it closes; any batch still waiting fails now.
        _producer.Dispose();
        _record.Dispose();
        _headers.Dispose();
        KafkaDeliveryTracker[] pending;
        lock (_pending)
        {
            pending = [.. _pending];
            _pending.Clear();
        }

        foreach (var tracker in pending)
        {
            tracker.Abandon(new EtlDeliveryException("The Kafka producer was closed before the broker acknowledged every message."));
        }

        return ValueTask.CompletedTask;
    }
}
