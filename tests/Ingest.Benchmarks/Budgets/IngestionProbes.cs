using System.Text;
using Ingest.Benchmarks.Documents;
using Ingest.Contracts.Messages;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;
using Ingest.Server.Sources.RabbitMq;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// The ingestion service's per-message steps, without brokers: the mapper on a Kafka record and on an AMQP delivery
/// (generated orders, keyed by their id), and the batcher's add with default options.
/// </summary>
internal sealed class IngestionProbes : IDisposable
{
    private const int Messages = 1_000;
    private const int MessagesPerRound = 20_000;
    private const int AddsPerRound = 100_000;
    private const string Topic = "orders";

    private readonly OrderDataset _orders;
    private readonly byte[][] _keys;
    private readonly MappingRules _rules = new();
    private readonly KafkaHeadersView _kafkaHeaders = new();
    private readonly KafkaKeyCapture _keyCapture = new();
    private readonly KafkaValueCapture _values = new();
    private readonly Batcher<IngestItem> _batcher = new(new BatchingOptions());
    private readonly IngestItem _item;

    public IngestionProbes(int seed)
    {
        _orders = OrderDataset.Generate(Messages, 0, seed);
        _keys = new byte[Messages][];
        for (var i = 0; i < Messages; i++)
        {
            _keys[i] = Encoding.UTF8.GetBytes(_orders.Ids[i]);
        }

        _item = IngestItemMapper.Map(
            IncomingMessage.FromKafka(Topic, _keys[0], true, _orders.Bodies[0], false, null), _rules, _kafkaHeaders, _orders.Bodies[0], Position(0));
    }

    public IEnumerable<AllocationProbe> Probes =>
    [
        new("ingest/mapper-kafka-put", "message", AllocationCounter.Thread, MapKafkaRecords),
        new("ingest/mapper-amqp-put", "message", AllocationCounter.Thread, MapAmqpDeliveries),
        new("ingest/batcher-add", "add", AllocationCounter.Thread, AddToBatcher),
    ];

    public void Dispose() => _batcher.Dispose();

    // A keyed record without headers, as the Kafka source takes it: the key deserializer copies the key into its reused
    // buffer, the value deserializer copies the value into a pooled array (no array per record for either) that the put
    // keeps, returned here as the batch writer returns it once the batch is durable. The id string made from the key is
    // the one allocation a put needs.
    private long MapKafkaRecords()
    {
        var context = new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Value, Topic);
        var keyContext = new Confluent.Kafka.SerializationContext(Confluent.Kafka.MessageComponentType.Key, Topic);
        for (var i = 0; i < MessagesPerRound; i++)
        {
            var n = i % Messages;
            var key = _keyCapture.Read(_keyCapture.Deserialize(_keys[n], isNull: false, keyContext));
            var value = _values.Deserialize(_orders.Bodies[n], isNull: false, context);
            _values.TryTake(value, out var pooled, out var length);
            var body = pooled.AsMemory(0, length);
            var item = IngestItemMapper.Map(IncomingMessage.FromKafka(Topic, key, true, body.Span, false, null), _rules, _kafkaHeaders, body, Position(i), pooled);
            Expect(item);
            item.ReturnRented();
        }

        return MessagesPerRound;
    }

    // A delivery with a message-id whose body the client only lends: the put copies it into a pooled array, returned
    // here as the batch writer returns it once the batch is written.
    private long MapAmqpDeliveries()
    {
        for (var i = 0; i < MessagesPerRound; i++)
        {
            var n = i % Messages;
            var item = IngestItemMapper.Map(
                IncomingMessage.FromAmqp(Topic, _orders.Ids[n], _orders.Bodies[n], null), _rules, new AmqpEnvelopeHeaders(null), default, Position(i));
            Expect(item);
            item.ReturnRented();
        }

        return MessagesPerRound;
    }

    // Adds that never wait (the consumer keeps up: each closed batch is taken and disposed on this thread, which
    // recycles its item list), so the figure covers add, close by count, take and return.
    private long AddToBatcher()
    {
        var size = _item.SizeBytes;
        for (var i = 0; i < AddsPerRound; i++)
        {
            var added = _batcher.AddAsync(_item, size);
            if (!added.IsCompletedSuccessfully)
            {
                throw new InvalidOperationException("the batcher made an add wait although every closed batch was taken");
            }

            while (_batcher.TryTake(out var batch))
            {
                batch.Dispose();
            }
        }

        return AddsPerRound;
    }

    private static ItemPosition Position(long offset) => new("orders/orders", 0, offset, 1);

    private static void Expect(in IngestItem item)
    {
        if (item.Kind != IngestItemKind.Put)
        {
            throw new InvalidOperationException($"a generated order mapped to {item.Kind}: {item.DeadLetterReason}");
        }
    }
}
