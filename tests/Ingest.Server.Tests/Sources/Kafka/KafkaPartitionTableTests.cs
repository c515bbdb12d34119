using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaPartitionTableTests
{
    [Fact]
    public void Positions_are_one_past_the_highest_offset_per_partition_including_dead_letters()
    {
        var table = new KafkaPartitionTable("src");
        var p0 = table.Assign("orders", 0);
        var p2 = table.Assign("orders", 2);
        IngestItem[] items =
        [
            Put(p0, 10), Put(p2, 7), DeadLetter(p0, 11), Put(p2, 8), Put(p0, 12),
        ];
        using var temp = new TempDocumentStore();
        var batch = new WriteBatch();
        table.AddPositions(batch, items);
        temp.Store.Write(batch);

        Assert.Equal("src/orders", p0.Origin);
        Assert.Same(p0.Origin, p2.Origin);
        Assert.Equal(13, temp.Store.GetSourcePosition("src/orders", 0)!.Value.Position.NextOffset);
        Assert.Equal(9, temp.Store.GetSourcePosition("src/orders", 2)!.Value.Position.NextOffset);
        Assert.Null(temp.Store.GetSourcePosition("src/orders", 1));
    }

    [Fact]
    public void Items_from_before_a_release_are_not_current()
    {
        var table = new KafkaPartitionTable("src");
        var p0 = table.Assign("orders", 0);
        var stale = Put(p0, 5, table.EpochOf(p0));
        table.Release("orders", 0);
        Assert.False(table.IsCurrent(stale));

        table.Assign("orders", 0);
        var fresh = Put(p0, 3, table.EpochOf(p0));
        Assert.True(table.IsCurrent(fresh));
        Assert.False(table.IsCurrent(stale));
    }

    [Fact]
    public void The_consume_threads_lookup_returns_the_same_state_and_the_epoch_of_now()
    {
        var table = new KafkaPartitionTable("src");
        var unseen = table.Get("orders", 1, out var first);
        Assert.Equal(unseen.Epoch, first);
        var p0 = table.Assign("orders", 0);
        Assert.Same(p0, table.Get("orders", 0, out var before));

        table.Release("orders", 0);
        Assert.Same(p0, table.Get("orders", 0, out var after));
        Assert.Equal(before + 1, after);
        Assert.Equal(table.EpochOf(p0), after);
        Assert.Same(unseen, table.Get("orders", 1, out _));
    }

    [Fact]
    public void Items_being_written_are_positioned_even_if_their_partition_was_released_since_the_check()
    {
        var table = new KafkaPartitionTable("src");
        var p0 = table.Assign("orders", 0);
        var taken = Put(p0, 5, table.EpochOf(p0));
        Assert.True(table.IsCurrent(taken));
        table.Release("orders", 0);

        // The writer accepted the item before the release, so its document unstored: its
        // position must commit with it, or a restart would apply the message twice.
        var batch = new WriteBatch();
        table.AddPositions(batch, [taken]);
        Assert.Equal(1, batch.Count);
    }

    [Fact]
    public void Durable_offsets_are_collected_for_the_offset_store_once_and_never_for_released_partitions()
    {
        var table = new KafkaPartitionTable("src");
        var p0 = table.Assign("orders", 0);
        var p1 = table.Assign("orders", 1);
        var unstored = new List<TopicPartitionOffset>();
        Assert.Equal(0, table.CollectUnstored(unstored));

        table.RecordDurable([Put(p0, 4), Put(p1, 9), Put(p0, 5)]);
        Assert.Equal(2, table.CollectUnstored(unstored));
        Assert.Contains(new TopicPartitionOffset("orders", 0, 6), unstored);
        Assert.Contains(new TopicPartitionOffset("orders", 1, 10), unstored);

        // Accepted by the client's offset store: nothing new to store until more becomes durable.
        table.MarkStored(unstored);
        unstored.Clear();
        Assert.Equal(0, table.CollectUnstored(unstored));

        // Not accepted (e.g. the broker is down): collected again next time.
        table.RecordDurable([Put(p0, 6)]);
        Assert.Equal(1, table.CollectUnstored(unstored));
        unstored.Clear();
        Assert.Equal(1, table.CollectUnstored(unstored));
        unstored.Clear();

        // A lost partition unstored nothing, even for what became durable before.
        table.RecordDurable([Put(p1, 10)]);
        table.Release("orders", 1);
        table.RecordDurable([Put(p1, 11, epoch: 0)]);
        Assert.Equal(1, table.CollectUnstored(unstored));
        Assert.Equal(new TopicPartitionOffset("orders", 0, 7), unstored[0]);
    }

    [Fact]
    public void A_rewind_stores_the_lower_offset_for_the_group_and_durable_progress_climbs_again_from_there()
    {
        var table = new KafkaPartitionTable("src");
        var p0 = table.Assign("orders", 0);
        var released = table.Assign("orders", 1);
        var unstored = new List<TopicPartitionOffset>();
        table.RecordDurable([Put(p0, 99)]);
        Assert.Equal(1, table.CollectUnstored(unstored));
        table.MarkStored(unstored);
        unstored.Clear();
        table.Release("orders", 1);

        table.Rewind(p0, 0);
        table.Rewind(released, 0);

        Assert.Equal(1, table.CollectUnstored(unstored));
        Assert.Equal(new TopicPartitionOffset("orders", 0, 0), unstored[0]);
        table.MarkStored(unstored);
        unstored.Clear();
        table.RecordDurable([Put(p0, 4)]);
        Assert.Equal(1, table.CollectUnstored(unstored));
        Assert.Equal(new TopicPartitionOffset("orders", 0, 5), unstored[0]);
    }

    [Fact]
    public void Assigned_partitions_are_listed_until_released()
    {
        var table = new KafkaPartitionTable("src");
        table.Assign("a", 0);
        table.Assign("b", 3);
        table.Release("a", 0);
        var assigned = new List<KafkaPartitionState>();
        table.CollectAssigned(assigned);
        var only = Assert.Single(assigned);
        Assert.Equal(("b", 3, "src/b"), (only.Topic, only.Partition, only.Origin));
    }

    private static IngestItem Put(KafkaPartitionState state, long offset, int epoch = 0) =>
        new(IngestItemKind.Put, $"id-{offset}", "c", "{}"u8.ToArray(), null, new ItemPosition(state.Origin, state.Partition, offset, epoch));

    private static IngestItem DeadLetter(KafkaPartitionState state, long offset) =>
        new(IngestItemKind.DeadLetter, null, null, "raw"u8.ToArray(), "bad", new ItemPosition(state.Origin, state.Partition, offset, 0));
}
