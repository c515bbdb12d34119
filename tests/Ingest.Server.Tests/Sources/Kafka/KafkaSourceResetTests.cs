using System.Text;
using Confluent.Kafka;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging;
using static Ingest.Server.Tests.Sources.Kafka.KafkaSourceTests;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// Resets against the real broker. Every put takes a new etag, so the store's last etag counts
/// the messages applied: a message applied once too often or never shows in it.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaSourceResetTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(120);
    private static readonly BatchingOptions SmallBatches = new() { MaxMessages = 200 };

    [Fact]
    public async Task A_reset_to_earliest_applies_every_message_exactly_once_more()
    {
        const int Count = 3_000;
        var (kafka, topic, ends) = await NewTopicAsync("reset-earliest", 3, Sequence(0, Count));
        using var temp = new TempDocumentStore();
        var origin = $"again/{topic}";
        await using var source = Source("again", Options(kafka, topic, NewName("group")), temp.Store, SmallBatches);
        await StartAndCatchUpAsync(source, temp, origin, Count);
        Assert.Equal(Count, temp.Store.LastEtag);

        var moved = await source.ResetAsync(SourceResetTarget.Earliest, CancellationToken.None);

        Assert.Equal([0, 1, 2], moved.Select(m => m.Partition).Order());
        Assert.All(moved, m => Assert.Equal((topic, ends[m.Partition], 0L), (m.Topic, m.From, m.To)));
        await WaitUntilAsync(() => temp.Store.LastEtag >= 2 * Count && StoredTotal(temp.Store, origin) == Count, Patience, "everything applied again");
        await source.StopAsync(CancellationToken.None);
        Assert.Equal(2 * Count, temp.Store.LastEtag);
        Assert.Equal(ends, StoredPositions(temp.Store, origin));

        // 2 x Count puts, and every document's latest etag among the second Count: each was written twice, no more.
        var etags = new HashSet<long>();
        for (var i = 0; i < Count; i++)
        {
            var document = temp.Store.Get(i.ToString(System.Globalization.CultureInfo.InvariantCulture))!;
            Assert.True(document.Etag > Count, $"document {i} has etag {document.Etag}: not written again");
            Assert.True(etags.Add(document.Etag));
            Assert.True(document.Body.Span.SequenceEqual(Encoding.UTF8.GetBytes(Body(i))));
        }
    }

    [Fact]
    public async Task A_reset_during_live_traffic_loses_nothing_and_applies_what_came_before_it_once_more()
    {
        const int Chunks = 60;
        const int PerChunk = 250;
        const int Count = Chunks * PerChunk;
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("reset-live");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        using var temp = new TempDocumentStore();
        var origin = $"live/{topic}";
        // Batches held open for a second: a reset always finds messages consumed but not written yet,
        // which must land (with their offsets) before the new positions, never after.
        var slowBatches = new BatchingOptions { MaxMessages = 100_000, MaxDelay = TimeSpan.FromSeconds(1) };
        await using var source = Source("live", Options(kafka.BootstrapServers, topic, NewName("group")), temp.Store, slowBatches);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => source.GetStatus().Partitions.Count == 3, Patience, "assigned");

        var producing = Task.Run(async () =>
        {
            for (var chunk = 0; chunk < Chunks; chunk++)
            {
                await ProduceAsync(kafka.BootstrapServers, topic, Sequence(chunk * PerChunk, PerChunk));
                await Task.Delay(100);
            }
        });
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) >= 1_000, Patience, "some messages stored");
        var moved = await source.ResetAsync(SourceResetTarget.Earliest, CancellationToken.None);
        var live = !producing.IsCompleted;
        await producing;

        // Applied before the reset (its positions, after in-flight batches were written), then all of them again.
        var before = moved.Sum(m => m.From ?? 0);
        Assert.True(live, "the reset happened while messages were still being published");
        Assert.True(before >= 1_000 && before < Count, $"{before} applied before the reset");
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == Count && temp.Store.LastEtag >= Count + before, Patience, "every message stored");
        await source.StopAsync(CancellationToken.None);
        Assert.Equal(Count + before, temp.Store.LastEtag);
        Assert.Equal(EndOffsets(kafka.BootstrapServers, topic, 3), StoredPositions(temp.Store, origin));
        for (var i = 0; i < Count; i++)
        {
            var document = temp.Store.Get(i.ToString(System.Globalization.CultureInfo.InvariantCulture));
            Assert.NotNull(document);
            Assert.True(document.Body.Span.SequenceEqual(Encoding.UTF8.GetBytes(Body(i))));
        }
    }

    [Fact]
    public async Task A_reset_to_a_time_resumes_each_partition_at_its_first_message_from_then_and_a_future_time_at_its_end()
    {
        const int Old = 600;
        const int Recent = 400;
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("reset-time");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        var now = DateTimeOffset.UtcNow;
        var old = Sequence(0, Old);
        var recent = Sequence(Old, Recent);
        old.ForEach(m => m.Timestamp = new Timestamp(now.AddMinutes(-10)));
        recent.ForEach(m => m.Timestamp = new Timestamp(now.AddMinutes(-5)));
        await ProduceAsync(kafka.BootstrapServers, topic, old);
        var landed = await ProduceAsync(kafka.BootstrapServers, topic, recent);
        var firstRecent = landed.GroupBy(l => l.Partition.Value).ToDictionary(g => g.Key, g => g.Min(l => l.Offset.Value));
        var ends = EndOffsets(kafka.BootstrapServers, topic, 3);
        using var temp = new TempDocumentStore();
        var origin = $"time/{topic}";
        await using var source = Source("time", Options(kafka.BootstrapServers, topic, NewName("group")), temp.Store, SmallBatches);
        await StartAndCatchUpAsync(source, temp, origin, Old + Recent);

        var moved = await source.ResetAsync(SourceResetTarget.At(now.AddMinutes(-7)), CancellationToken.None);

        Assert.Equal(3, moved.Count);
        Assert.All(moved, m => Assert.Equal((ends[m.Partition], firstRecent.GetValueOrDefault(m.Partition, ends[m.Partition])), (m.From!.Value, m.To)));
        await WaitUntilAsync(() => temp.Store.LastEtag >= Old + (2 * Recent) && StoredTotal(temp.Store, origin) == Old + Recent, Patience, "recent messages applied again");

        var future = await source.ResetAsync(SourceResetTarget.At(now.AddHours(1)), CancellationToken.None);
        Assert.All(future, m => Assert.Equal((ends[m.Partition], ends[m.Partition]), (m.From!.Value, m.To)));
        await source.StopAsync(CancellationToken.None);
        Assert.Equal(Old + (2 * Recent), temp.Store.LastEtag);
        for (var i = 0; i < Old + Recent; i++)
        {
            var document = temp.Store.Get(i.ToString(System.Globalization.CultureInfo.InvariantCulture))!;
            Assert.Equal(i >= Old, document.Etag > Old + Recent);
        }
    }

    [Fact]
    public async Task A_reset_to_explicit_offsets_moves_the_named_partitions_and_keeps_the_others()
    {
        const int Count = 1_500;
        var (kafka, topic, ends) = await NewTopicAsync("reset-offsets", 3, Sequence(0, Count));
        using var temp = new TempDocumentStore();
        var origin = $"offsets/{topic}";
        var logs = new RecordedLogs();
        using var loggers = logs.CreateFactory();
        await using var source = new KafkaSource("offsets", Options(kafka, topic, NewName("group")), temp.Store, SmallBatches, loggers, TimeProvider.System);
        await StartAndCatchUpAsync(source, temp, origin, Count);

        var target = SourceResetTarget.To(new Dictionary<string, IReadOnlyDictionary<int, long>> { [topic] = new Dictionary<int, long> { [0] = 5, [2] = ends[2] - 3 } });
        var moved = await source.ResetAsync(target, CancellationToken.None);

        Assert.Equal([(topic, 0, (long?)ends[0], 5L), (topic, 2, ends[2], ends[2] - 3)], moved.Select(m => (m.Topic, m.Partition, m.From, m.To)));
        var again = (ends[0] - 5) + 3;
        await WaitUntilAsync(() => temp.Store.LastEtag >= Count + again && StoredTotal(temp.Store, origin) == Count, Patience, "the named partitions applied again");
        await source.StopAsync(CancellationToken.None);
        Assert.Equal(Count + again, temp.Store.LastEtag);
        Assert.Equal(ends, StoredPositions(temp.Store, origin));

        // One line for the reset, whatever the number of messages applied again.
        var line = Assert.Single(logs.Matching("reset to"));
        Assert.Equal(LogLevel.Information, line.Level);
        Assert.Contains($"Kafka source 'offsets': reset to offsets: {topic}[0] {ends[0]}->5, {topic}[2] {ends[2]}->{ends[2] - 3}; consuming resumed", line.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Targets_the_broker_does_not_hold_are_refused_naming_the_problem_and_change_nothing()
    {
        var (kafka, topic, ends) = await NewTopicAsync("reset-refused", 2, Sequence(0, 20));
        using var temp = new TempDocumentStore();
        var origin = $"refused/{topic}";
        await using var source = Source("refused", Options(kafka, topic, NewName("group")), temp.Store);
        var notStarted = await Assert.ThrowsAsync<SourceResetException>(() => source.ResetAsync(SourceResetTarget.Earliest, CancellationToken.None));
        Assert.Equal(SourceResetProblem.Unavailable, notStarted.Problem);
        Assert.Contains("is not running", notStarted.Message, StringComparison.Ordinal);

        await StartAndCatchUpAsync(source, temp, origin, 20);
        var unknownTopic = await RefusedAsync(source, "elsewhere", 0, 0);
        var noPartition = await RefusedAsync(source, topic, 7, 0);
        var pastTheEnd = await RefusedAsync(source, topic, 1, ends[1] + 1);
        await source.StopAsync(CancellationToken.None);

        Assert.Contains($"the source consumes '{topic}'; 'elsewhere' is not one of them", unknownTopic, StringComparison.Ordinal);
        Assert.Contains($"topic '{topic}' has partitions 0 to 1; there is no partition 7", noPartition, StringComparison.Ordinal);
        Assert.Contains($"{topic}[1] holds offsets 0 to {ends[1]}", pastTheEnd, StringComparison.Ordinal);
        Assert.Equal(ends, StoredPositions(temp.Store, origin));
        Assert.Equal(20, temp.Store.LastEtag);
    }

    /// <summary>A new topic holding <paramref name="records"/>: the bootstrap servers, its name and each partition's end.</summary>
    private async Task<(string Kafka, string Topic, Dictionary<int, long> Ends)> NewTopicAsync(string prefix, int partitions, List<Message<byte[]?, byte[]?>> records)
    {
        var kafka = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = NewName(prefix);
        await CreateTopicAsync(kafka, topic, partitions);
        await ProduceAsync(kafka, topic, records);
        return (kafka, topic, EndOffsets(kafka, topic, partitions));
    }

    private static async Task StartAndCatchUpAsync(KafkaSource source, TempDocumentStore temp, string origin, long count)
    {
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == count, Patience, "every offset stored");
    }

    private static async Task<string> RefusedAsync(KafkaSource source, string topic, int partition, long offset)
    {
        var target = SourceResetTarget.To(new Dictionary<string, IReadOnlyDictionary<int, long>> { [topic] = new Dictionary<int, long> { [partition] = offset } });
        var refused = await Assert.ThrowsAsync<SourceResetException>(() => source.ResetAsync(target, CancellationToken.None));
        Assert.Equal(SourceResetProblem.InvalidTarget, refused.Problem);
        Assert.EndsWith("; nothing was reset.", refused.Message, StringComparison.Ordinal);
        return refused.Message;
    }
}
