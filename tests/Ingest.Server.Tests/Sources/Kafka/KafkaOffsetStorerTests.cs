using Confluent.Kafka;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging.Abstractions;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>Only durable offsets reach the client's offset store, and from there the group.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaOffsetStorerTests(BrokerFixture brokers)
{
    [Fact]
    public async Task Durable_offsets_are_stored_once_and_reach_the_group_while_consumed_but_not_durable_ones_do_not()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("storer");
        var group = NewName("group");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 2);
        using var consumer = new ConsumerBuilder<byte[]?, byte[]?>(new ConsumerConfig
        {
            BootstrapServers = kafka.BootstrapServers,
            GroupId = group,
            EnableAutoOffsetStore = false,
            EnableAutoCommit = false,
        }).SetLogHandler(static (_, _) => { }).Build();
        consumer.Assign([new TopicPartitionOffset(topic, 0, 0), new TopicPartitionOffset(topic, 1, 0)]);
        var partitions = new KafkaPartitionTable("src");
        var p0 = partitions.Assign(topic, 0);
        partitions.Assign(topic, 1);
        var storer = new KafkaOffsetStorer("src", partitions, NullLogger.Instance);

        // Partition 0 has a durable batch up to offset 41; partition 1 has nothing durable.
        partitions.RecordDurable([new IngestItem(IngestItemKind.Put, "a", "c", "{}"u8.ToArray(), null, new ItemPosition(p0.Origin, 0, 41, 0))]);
        Assert.True(storer.StoreOffsets(consumer, final: true));
        var unstored = new List<TopicPartitionOffset>();
        Assert.Equal(0, partitions.CollectUnstored(unstored));

        var committed = consumer.Commit();

        Assert.Contains(new TopicPartitionOffset(topic, 0, 42), committed);
        Assert.Equal(Offset.Unset, committed.Single(c => c.Partition.Value == 1).Offset);
        var inGroup = await CommittedAsync(kafka.BootstrapServers, group, topic, 2);
        Assert.Equal(42, inGroup[0]);
        Assert.True(inGroup[1] < 0, $"partition 1 has committed offset {inGroup[1]} though nothing of it is durable");
    }
}
