using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Brokers;

/// <summary>Proves the Kafka client, the native library and the broker work together end to end.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaPlumbingTests(BrokerFixture brokers)
{
    private const int MessageCount = 10_000;
    private const int Partitions = 3;

    [Fact]
    public async Task Consumer_group_reads_back_every_message_in_partition_order_and_commits_offsets()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = $"plumbing-{Guid.NewGuid():N}";
        var group = $"plumbing-group-{Guid.NewGuid():N}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = Partitions, ReplicationFactor = 1 }]);
        }

        // Produce: record where each message landed, so per-partition order can be checked exactly.
        var landed = new TopicPartitionOffset[MessageCount];
        var producerConfig = new ProducerConfig { BootstrapServers = kafka.BootstrapServers, EnableIdempotence = true, Acks = Acks.All, LingerMs = 5 };
        using (var producer = new ProducerBuilder<string, string>(producerConfig).Build())
        {
            var deliveries = new Task<DeliveryResult<string, string>>[MessageCount];
            for (var i = 0; i < MessageCount; i++)
            {
                deliveries[i] = producer.ProduceAsync(topic, new Message<string, string> { Key = Key(i), Value = Value(i) });
            }

            for (var i = 0; i < MessageCount; i++)
            {
                var result = await deliveries[i];
                Assert.Equal(PersistenceStatus.Persisted, result.Status);
                landed[i] = result.TopicPartitionOffset;
            }
        }

        Assert.Equal(Partitions, landed.Select(l => l.Partition.Value).Distinct().Count());

        // Consume with a consumer group, committing manually as a real source would.
        var consumed = new Dictionary<int, List<(long Offset, string Key, string Value)>>();
        var consumerConfig = new ConsumerConfig
        {
            BootstrapServers = kafka.BootstrapServers,
            GroupId = group,
            AutoOffsetReset = AutoOffsetReset.Earliest,
            EnableAutoCommit = false,
        };
        using (var consumer = new ConsumerBuilder<string, string>(consumerConfig).Build())
        {
            consumer.Subscribe(topic);
            var deadline = DateTime.UtcNow.AddSeconds(90);
            var total = 0;
            while (total < MessageCount && DateTime.UtcNow < deadline)
            {
                var record = consumer.Consume(TimeSpan.FromSeconds(1));
                if (record is null)
                {
                    continue;
                }

                if (!consumed.TryGetValue(record.Partition.Value, out var list))
                {
                    consumed[record.Partition.Value] = list = [];
                }

                list.Add((record.Offset.Value, record.Message.Key, record.Message.Value));
                total++;
                if (total % 1_000 == 0)
                {
                    consumer.Commit(NextOffsets(topic, consumed));
                }
            }

            consumer.Commit(NextOffsets(topic, consumed));
            consumer.Close();
            Assert.Equal(MessageCount, total);
        }

        // Contents exact and order kept per partition: each partition holds exactly the messages
        // produced to it, in produce order.
        for (var partition = 0; partition < Partitions; partition++)
        {
            var expected = Enumerable.Range(0, MessageCount)
                .Where(i => landed[i].Partition.Value == partition)
                .OrderBy(i => landed[i].Offset.Value)
                .Select(i => (landed[i].Offset.Value, Key(i), Value(i)))
                .ToList();
            Assert.Equal(expected, consumed[partition]);
        }

        // Offsets committed: the group's committed position is the end of every partition.
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            var partitions = Enumerable.Range(0, Partitions).Select(p => new TopicPartition(topic, p)).ToList();
            var offsets = await admin.ListConsumerGroupOffsetsAsync([new ConsumerGroupTopicPartitions(group, partitions)]);
            var committed = offsets.Single().Partitions.ToDictionary(p => p.Partition.Value, p => p.Offset.Value);
            for (var partition = 0; partition < Partitions; partition++)
            {
                Assert.Equal(consumed[partition][^1].Offset + 1, committed[partition]);
            }

            Assert.Equal(MessageCount, committed.Values.Sum());
            await admin.DeleteTopicsAsync([topic]);
        }
    }

    // Explicit offsets, as a source commits them: the next offset to read in each partition.
    private static List<TopicPartitionOffset> NextOffsets(string topic, Dictionary<int, List<(long Offset, string Key, string Value)>> consumed) =>
        consumed.Select(p => new TopicPartitionOffset(topic, p.Key, p.Value[^1].Offset + 1)).ToList();

    private static string Key(int i) => $"order-{i % 101}";

    private static string Value(int i) => $$"""{"seq":{{i}},"note":"{{new string((char)('a' + (i % 26)), 1 + (i % 40))}}","unicode":"zürich ✓"}""";
}
