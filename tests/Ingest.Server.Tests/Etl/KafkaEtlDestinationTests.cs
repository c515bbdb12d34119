using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.CloudEvents;
using Ingest.Server.Brokers;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// The Kafka destination's own producer (librdkafka without the Confluent binding) against a real
/// broker: what arrives, where it is partitioned, and how refusals and closing fail a batch.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaEtlDestinationTests(BrokerFixture brokers)
{
    private const string Source = "/ingest/test";
    private static readonly DateTime Time = new DateTime(2026, 11, 26, 10, 0, 0, DateTimeKind.Utc).AddTicks(1_234_567);

    [Fact]
    public async Task Records_arrive_byte_identical_to_the_cloud_events_binding_on_the_key_partitions_of_the_confluent_producer()
    {
        var (bootstrap, topic) = await EtlTestKit.NewKafkaTopicAsync(brokers, "etl-native");
        var other = KafkaTestKit.NewName("etl-native-other");
        await KafkaTestKit.CreateTopicAsync(bootstrap, other, 3);
        var body = """{"Customer":"é","Total":12.5}"""u8.ToArray();
        List<EtlMessage> messages =
        [
            new("orders/1", 1, "Orders", Time, false, body, -1, "orders/1", null, []),
            new("orders/2", 2, "Orders", Time, false, Array.Empty<byte>(), -1, "orders/2", null, []),
            new("orders/3", 3, "Orders", Time, true, null, -1, "orders/3", null, []),
            new("orders/ü", 4, "Order Lines", Time.AddSeconds(1), false, body, 1, "customers/7", null, [new("x-kind", "line"), new("x-empty", "")]),
            new("orders/5", 5, "Orders", Time, false, body, -1, "orders/5", other, []),
        ];
        for (var i = 6; i < 60; i++)
        {
            messages.Add(new EtlMessage($"orders/{i}", i, "Orders", Time, false, body, -1, $"orders/{i}", null, []));
        }

        await using (var destination = Destination(bootstrap, topic))
        {
            var acknowledged = await destination.SendAsync(messages, CancellationToken.None);
            await acknowledged.WaitAsync(EtlTestKit.Patience);
        }

        var arrived = Consume(bootstrap, topic, messages.Count - 1).Concat(Consume(bootstrap, other, 1)).ToDictionary(static r => Encoding.UTF8.GetString(r.Message.Key));
        var reference = KafkaTestKit.NewName("etl-native-reference");
        await KafkaTestKit.CreateTopicAsync(bootstrap, reference, 3);
        var landed = await KafkaTestKit.ProduceAsync(bootstrap, reference, [.. messages.Select(static m => KafkaTestKit.Record(m.Key, "x"))]);
        for (var i = 0; i < messages.Count; i++)
        {
            var message = messages[i];
            var record = arrived[message.Key];
            var expected = KafkaCloudEventBinding.Encode(message.ToCloudEvent(Source));
            Assert.Equal(
                expected.Headers.Select(static h => (h.Key, Convert.ToHexString(h.Value)))
                    .Concat(message.Headers.Select(static h => (h.Key, Convert.ToHexString(Encoding.UTF8.GetBytes(h.Value))))).Order(),
                record.Message.Headers.Select(static h => (h.Key, Convert.ToHexString(h.GetValueBytes()))).Order());
            Assert.Equal(message.Deleted ? null : message.Body.ToArray(), record.Message.Value);
            Assert.Equal(landed[i].Partition.Value, record.Partition.Value);
        }
    }

    [Fact]
    public async Task A_record_the_producer_refuses_fails_the_send_and_its_batch_after_the_records_handed_over()
    {
        var (bootstrap, topic) = await EtlTestKit.NewKafkaTopicAsync(brokers, "etl-native-refused");
        var definition = new EtlKafkaSettings { BootstrapServers = bootstrap, Topic = topic, Settings = { ["message.max.bytes"] = "2000" } };
        List<EtlMessage> messages =
        [
            new("orders/1", 1, "Orders", Time, false, "{}"u8.ToArray(), -1, "orders/1", null, []),
            new("orders/2", 2, "Orders", Time, false, new byte[5_000], -1, "orders/2", null, []),
            new("orders/3", 3, "Orders", Time, false, "{}"u8.ToArray(), -1, "orders/3", null, []),
        ];
        await using var destination = new KafkaEtlDestination(definition, "refused", Source, ConfiguredSecrets.None);

        var refused = await Assert.ThrowsAsync<EtlDeliveryException>(async () => await destination.SendAsync(messages, CancellationToken.None));

        Assert.Contains($"Kafka refused a message for topic '{topic}'", refused.Message, StringComparison.Ordinal);
        var next = await destination.SendAsync(messages[..1], CancellationToken.None);
        await next.WaitAsync(EtlTestKit.Patience);
        Assert.Equal(["orders/1", "orders/1"], Consume(bootstrap, topic, 2).Select(static r => Encoding.UTF8.GetString(r.Message.Key)));
    }

    [Fact]
    public async Task Closing_the_destination_fails_the_batches_the_broker_has_not_acknowledged()
    {
        var definition = new EtlKafkaSettings { BootstrapServers = $"127.0.0.1:{Ingest.Testing.LocalPorts.Unused()}", Topic = "nowhere" };
        var destination = new KafkaEtlDestination(definition, "closed", Source, ConfiguredSecrets.None);
        var acknowledged = await destination.SendAsync([new EtlMessage("orders/1", 1, "Orders", Time, false, "{}"u8.ToArray(), -1, "orders/1", null, [])], CancellationToken.None);

        await destination.DisposeAsync();

        var failure = await Assert.ThrowsAsync<EtlDeliveryException>(() => acknowledged.WaitAsync(EtlTestKit.Patience));
        Assert.Contains("Kafka", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_setting_librdkafka_does_not_know_is_refused_with_its_name()
    {
        var definition = new EtlKafkaSettings { BootstrapServers = "127.0.0.1:9", Topic = "t", Settings = { ["no.such.setting"] = "1" } };

        var refused = Assert.Throws<ArgumentException>(() => new KafkaEtlDestination(definition, "bad", Source, ConfiguredSecrets.None));

        Assert.Contains("no.such.setting", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_destination_and_the_confluent_binding_use_one_librdkafka()
    {
        var definition = new EtlKafkaSettings { BootstrapServers = "127.0.0.1:9", Topic = "t" };
        await using var destination = new KafkaEtlDestination(definition, "library", Source, ConfiguredSecrets.None);
        using var producer = KafkaTestKit.Producer("127.0.0.1:9");

        var mapped = File.ReadAllLines("/proc/self/maps")
            .Where(static l => l.Contains("librdkafka", StringComparison.Ordinal))
            .Select(static l => l[l.IndexOf('/', StringComparison.Ordinal)..])
            .Distinct()
            .ToList();

        Assert.Single(mapped);
    }

    private static KafkaEtlDestination Destination(string bootstrap, string topic) =>
        new(new EtlKafkaSettings { BootstrapServers = bootstrap, Topic = topic }, "native", Source, ConfiguredSecrets.None);

    private static List<ConsumeResult<byte[], byte[]?>> Consume(string bootstrap, string topic, int count)
    {
        var config = new ConsumerConfig { BootstrapServers = bootstrap, GroupId = KafkaTestKit.NewName("etl-native"), AutoOffsetReset = AutoOffsetReset.Earliest, EnableAutoCommit = false };
        using var consumer = new ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        consumer.Subscribe(topic);
        var records = new List<ConsumeResult<byte[], byte[]?>>();
        var deadline = DateTime.UtcNow + EtlTestKit.Patience;
        while (records.Count < count && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(500)) is { Message: not null } result)
            {
                records.Add(result);
            }
        }

        consumer.Close();
        Assert.True(records.Count >= count, $"only {records.Count} of {count} records arrived on '{topic}'");
        return records;
    }
}
