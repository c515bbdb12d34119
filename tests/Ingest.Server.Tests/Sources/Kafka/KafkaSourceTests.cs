using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Contracts.DeadLetters;
using Ingest.Server.Batching;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

[Collection(BrokerFixture.Collection)]
public sealed class KafkaSourceTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(120);

    [Fact]
    public async Task Every_message_of_a_three_partition_topic_becomes_its_document_and_both_store_and_group_reach_the_end()
    {
        const int Count = 100_000;
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-all");
        var group = NewName("group");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        var records = new Message<byte[]?, byte[]?>[Count];
        for (var i = 0; i < Count; i++)
        {
            records[i] = i % 7 == 0
                ? Record($"doc-{i}", Body(i), ("ingest-collection", "Flagged"))
                : Record($"doc-{i}", Body(i));
        }

        await ProduceAsync(kafka.BootstrapServers, topic, records);
        var ends = EndOffsets(kafka.BootstrapServers, topic, 3);
        Assert.Equal(Count, ends.Values.Sum());

        using var temp = new TempDocumentStore();
        var source = Source("all", Options(kafka.BootstrapServers, topic, group), temp.Store);
        await using (source)
        {
            await source.StartAsync(CancellationToken.None);
            var origin = $"all/{topic}";
            await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == Count, Patience, "every offset stored");
            Assert.Equal(ends, StoredPositions(temp.Store, origin));
            await WaitUntilAsync(
                async () => (await CommittedAsync(kafka.BootstrapServers, group, topic, 3)).OrderBy(p => p.Key).SequenceEqual(ends.OrderBy(p => p.Key)),
                TimeSpan.FromSeconds(30), "the group's committed offsets at the end");

            await WaitUntilAsync(
                () => source.GetStatus().Partitions.All(p => p.HighWatermark == ends[p.Partition] && p.CommittedOffset == ends[p.Partition] && p.Lag == 0),
                TimeSpan.FromSeconds(30), "status shows every partition caught up");
            var status = source.GetStatus();
            Assert.True(status.Connected);
            Assert.False(status.Paused);
            Assert.Null(status.Error);
            Assert.Equal(Count, status.Consumed);
            Assert.Equal(Count, status.Written);
            Assert.Equal(3, status.Partitions.Count);
            await source.StopAsync(CancellationToken.None);
        }

        for (var i = 0; i < Count; i++)
        {
            var document = temp.Store.Get($"doc-{i}");
            Assert.NotNull(document);
            Assert.Equal($"doc-{i}", document.Id);
            Assert.Equal(i % 7 == 0 ? "Flagged" : topic, document.Collection);
            Assert.True(document.Body.Span.SequenceEqual(Encoding.UTF8.GetBytes(Body(i))), $"body of doc-{i}");
        }

        Assert.Equal(Count, temp.Store.LastEtag);
    }

    [Fact]
    public async Task Tombstones_and_delete_operations_delete_and_a_configured_collection_applies()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-delete");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        var records = new List<Message<byte[]?, byte[]?>>();
        for (var i = 0; i < 30; i++)
        {
            records.Add(Record($"d-{i}", Body(i)));
        }

        for (var i = 0; i < 10; i++)
        {
            records.Add(Record($"d-{i}", null));
        }

        for (var i = 10; i < 20; i++)
        {
            records.Add(Record($"d-{i}", Body(i), ("ingest-op", "delete")));
        }

        await ProduceAsync(kafka.BootstrapServers, topic, records);
        using var temp = new TempDocumentStore();
        var options = Options(kafka.BootstrapServers, topic, NewName("group"));
        options.Collection = "Configured";
        await using var source = Source("del", options, temp.Store);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, $"del/{topic}") == records.Count, Patience, "every offset stored");
        await source.StopAsync(CancellationToken.None);

        for (var i = 0; i < 20; i++)
        {
            Assert.Null(temp.Store.Get($"d-{i}"));
        }

        for (var i = 20; i < 30; i++)
        {
            var document = temp.Store.Get($"d-{i}");
            Assert.NotNull(document);
            Assert.Equal("Configured", document.Collection);
        }
    }

    [Fact]
    public async Task Poison_messages_become_dead_letters_whose_envelopes_decode_to_the_original_while_good_ones_land()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-poison");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 2);
        var records = new List<Message<byte[]?, byte[]?>>();
        var expected = new Dictionary<string, string>();
        var goods = new List<int>();
        for (var i = 0; i < 200; i++)
        {
            switch (i % 5)
            {
                case 0:
                    records.Add(Record($"bad-{i}", "this is not json", ("trace", $"t-{i}"), ("trace", "last")));
                    expected[$"bad-{i}"] = "not JSON";
                    break;
                case 1:
                    records.Add(Record(null, Body(i), ("marker", $"noid-{i}")));
                    expected[$"noid-{i}"] = "no document id";
                    break;
                case 2:
                    records.Add(Record($"bad-{i}", Body(i), ("ingest-op", "upsert")));
                    expected[$"bad-{i}"] = "unknown operation";
                    break;
                case 3:
                    records.Add(Record($"bad-{i}", $$"""{"seq":{{i}},"pad":"{{new string('x', 400)}}"}""", ("empty", null)));
                    expected[$"bad-{i}"] = "too large";
                    break;
                default:
                    records.Add(Record($"good-{i}", Body(i)));
                    goods.Add(i);
                    break;
            }
        }

        await ProduceAsync(kafka.BootstrapServers, topic, records);
        using var temp = new TempDocumentStore();
        var options = Options(kafka.BootstrapServers, topic, NewName("group"));
        options.MaxBodyBytes = 200;
        await using var source = Source("poison", options, temp.Store);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, $"poison/{topic}") == records.Count, Patience, "every offset stored");
        await source.StopAsync(CancellationToken.None);

        foreach (var i in goods)
        {
            Assert.True(temp.Store.Get($"good-{i}")!.Body.Span.SequenceEqual(Encoding.UTF8.GetBytes(Body(i))));
        }

        var deadLetters = temp.Store.GetDeadLetters(0, 1000);
        Assert.Equal(160, deadLetters.Count);
        var bySent = records.ToDictionary(r => Identify(r.Key, r.Headers), r => r);
        foreach (var deadLetter in deadLetters)
        {
            Assert.True(DeadLetterEnvelope.TryDecode(deadLetter.Raw.Span, out var envelope, out var error), error);
            Assert.Equal(topic, envelope.Destination);
            var name = Identify(envelope.Key, envelope.Headers);
            Assert.StartsWith(expected[name], deadLetter.Reason, StringComparison.Ordinal);
            Assert.Equal($"poison/{topic}", deadLetter.Position.Source);
            var sent = bySent[name];
            Assert.Equal(sent.Value, envelope.Body);
            Assert.Equal(sent.Key, envelope.Key);
            var sentHeaders = sent.Headers?.Select(h => (h.Key, Convert.ToHexString(h.GetValueBytes() ?? []))).ToList() ?? [];
            Assert.Equal(sentHeaders, envelope.Headers.Select(h => (h.Key, Convert.ToHexString(h.Value))).ToList());
        }
    }

    [Fact]
    public async Task Records_whose_headers_break_the_dead_letter_envelope_become_dead_letters_and_none_is_skipped()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-unmappable");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        var manyHeaders = Record("many-headers", "not json");
        manyHeaders.Headers = [];
        for (var i = 0; i < DeadLetterEnvelope.MaxHeaders + 5; i++)
        {
            manyHeaders.Headers.Add("h", []);
        }

        var manyHeadersButValid = Record("many-headers-valid", Body(1));
        manyHeadersButValid.Headers = manyHeaders.Headers;
        var longName = Record("long-name", "not json", (new string('n', DeadLetterEnvelope.MaxNameBytes + 1), "v"));
        var longId = Record("long-id", Body(2), ("ingest-id", new string('i', 70_000)));
        var records = new List<Message<byte[]?, byte[]?>> { Record("good-0", Body(0)), manyHeaders, Record("good-1", Body(1)), longName, longId, manyHeadersButValid };
        for (var i = 2; i < 50; i++)
        {
            records.Add(Record($"good-{i}", Body(i)));
        }

        await ProduceAsync(kafka.BootstrapServers, topic, records);
        using var temp = new TempDocumentStore();
        await using var source = Source("unmappable", Options(kafka.BootstrapServers, topic, NewName("group")), temp.Store);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, $"unmappable/{topic}") == records.Count, Patience, "every offset stored");
        await source.StopAsync(CancellationToken.None);

        for (var i = 0; i < 50; i++)
        {
            Assert.NotNull(temp.Store.Get($"good-{i}"));
        }

        Assert.NotNull(temp.Store.Get("many-headers-valid"));
        var deadLetters = temp.Store.GetDeadLetters(0, 100).ToDictionary(d => d.Position.NextOffset);
        Assert.Equal([1L, 3L, 4L], deadLetters.Keys.Order());
        Assert.Contains($"the envelope keeps the first {DeadLetterEnvelope.MaxHeaders} of its {DeadLetterEnvelope.MaxHeaders + 5} headers", deadLetters[1].Reason, StringComparison.Ordinal);
        Assert.Contains("header name(s) longer than 65535 bytes are cut", deadLetters[3].Reason, StringComparison.Ordinal);
        Assert.StartsWith("invalid id", deadLetters[4].Reason, StringComparison.Ordinal);
        foreach (var deadLetter in deadLetters.Values)
        {
            Assert.True(DeadLetterEnvelope.TryDecode(deadLetter.Raw.Span, out var envelope, out var error), error);
            Assert.Equal(records[(int)deadLetter.Position.NextOffset].Value, envelope.Body);
        }
    }

    [Fact]
    public async Task Restarts_and_a_crash_before_the_kafka_commit_apply_every_message_exactly_once()
    {
        // The sources' own log and librdkafka's group log go into the failure message: a restart
        // that never consumes must say where it stopped.
        var logs = new RecordedLogs();
        using var loggers = logs.CreateFactory(LogLevel.Debug);
        try
        {
            await RestartsAndACrashAsync(loggers);
        }
        catch (Exception ex) when (ex is TimeoutException or Xunit.Sdk.XunitException)
        {
            throw new TimeoutException($"{ex.Message}\n--- log ---\n{logs.Dump()}", ex);
        }
    }

    private async Task RestartsAndACrashAsync(ILoggerFactory loggers)
    {
        // Each phase adds messages before its source starts, so it always has something new to
        // consume: on a quiet machine a source can store a whole phase before a stop takes effect
        // (a stop requested at 4,000 once landed at 17,801 of 20,000, and the next phase then
        // waited for 4,000 messages that did not exist).
        const int PerPhase = 20_000;
        const int Last = 10_000;
        const int Total = PerPhase + PerPhase + Last;
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-once");
        var group = NewName("group");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        using var temp = new TempDocumentStore();
        var origin = $"once/{topic}";
        var batching = new BatchingOptions { MaxMessages = 200 };
        var options = Options(kafka.BootstrapServers, topic, group);
        options.Settings["debug"] = "cgrp";

        // A graceful stop, usually part-way (the test holds either way).
        await ProduceAsync(kafka.BootstrapServers, topic, Sequence(0, PerPhase));
        var first = Source("once", options, temp.Store, batching, loggers);
        await first.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) >= 4_000, Patience, "some offsets stored");
        await first.StopAsync(CancellationToken.None);
        await first.DisposeAsync();
        var afterStop = StoredTotal(temp.Store, origin);

        // A crash: no graceful stop, and Kafka's committed offsets set back to the start, as if the
        // process died after the store's commits but before any Kafka commit.
        await ProduceAsync(kafka.BootstrapServers, topic, Sequence(PerPhase, PerPhase));
        var second = Source("once", options, temp.Store, batching, loggers);
        await second.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) >= afterStop + 4_000, Patience, "more offsets stored after the graceful stop");
        await second.DisposeAsync();
        var afterCrash = StoredTotal(temp.Store, origin);
        await ResetGroupAsync(kafka.BootstrapServers, group, topic, 3);

        await ProduceAsync(kafka.BootstrapServers, topic, Sequence(PerPhase * 2, Last));
        await using var third = Source("once", options, temp.Store, batching, loggers);
        await third.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == Total, Patience, "every offset stored after the crash");
        await third.StopAsync(CancellationToken.None);

        Assert.True(afterCrash > afterStop);
        Assert.Equal(EndOffsets(kafka.BootstrapServers, topic, 3), StoredPositions(temp.Store, origin));
        // Each put takes a new etag, so any message applied twice would push this past the count.
        Assert.Equal(Total, temp.Store.LastEtag);
        for (var i = 0; i < Total; i++)
        {
            var document = temp.Store.Get(i.ToString(System.Globalization.CultureInfo.InvariantCulture));
            Assert.NotNull(document);
            Assert.True(document.Body.Span.SequenceEqual(Encoding.UTF8.GetBytes(Body(i))));
        }
    }

    [Fact]
    public async Task A_trickle_closes_batches_by_delay_and_a_burst_closes_them_by_count()
    {
        var kafka = await brokers.GetKafkaAsync();

        var trickleTopic = NewName("src-trickle");
        await CreateTopicAsync(kafka.BootstrapServers, trickleTopic, 1);
        using var trickleStore = new TempDocumentStore();
        var trickleBatching = new BatchingOptions { MaxDelay = TimeSpan.FromMilliseconds(50), MaxMessages = 1_000 };
        await using (var trickle = Source("trickle", Options(kafka.BootstrapServers, trickleTopic, NewName("group")), trickleStore.Store, trickleBatching))
        {
            await trickle.StartAsync(CancellationToken.None);
            await WaitUntilAsync(() => trickle.GetStatus().Partitions.Count == 1, Patience, "assigned");
            var sent = 0;
            using (var producer = Producer(kafka.BootstrapServers, lingerMs: 0))
            {
                var watch = System.Diagnostics.Stopwatch.StartNew();
                while (watch.Elapsed < TimeSpan.FromSeconds(1.5))
                {
                    producer.Produce(trickleTopic, Record($"t-{sent}", Body(sent)));
                    sent++;
                    Thread.Sleep(5);
                }

                producer.Flush(TimeSpan.FromSeconds(30));
            }

            await WaitUntilAsync(() => StoredTotal(trickleStore.Store, $"trickle/{trickleTopic}") == sent, Patience, "trickle stored");
            await trickle.StopAsync(CancellationToken.None);
            var statistics = trickle.Statistics;
            Assert.Equal(0, statistics.ClosedBy(BatchCloseReason.Count));
            Assert.True(statistics.ClosedBy(BatchCloseReason.Delay) >= statistics.Batches * 0.8, $"{statistics.ClosedBy(BatchCloseReason.Delay)} of {statistics.Batches} by delay");
            // How many depends on the store's sync speed (batches queue behind a slow commit); several, in any case.
            Assert.True(statistics.Batches >= 3, $"{statistics.Batches} batches for {sent} messages over 1.5 s");
        }

        const int Burst = 20_000;
        var burstTopic = NewName("src-burst");
        await CreateTopicAsync(kafka.BootstrapServers, burstTopic, 1);
        await ProduceAsync(kafka.BootstrapServers, burstTopic, Sequence(0, Burst));
        using var burstStore = new TempDocumentStore();
        var burstBatching = new BatchingOptions { MaxDelay = TimeSpan.FromMilliseconds(500), MaxMessages = 500 };
        await using var burst = Source("burst", Options(kafka.BootstrapServers, burstTopic, NewName("group")), burstStore.Store, burstBatching);
        await burst.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(burstStore.Store, $"burst/{burstTopic}") == Burst, Patience, "burst stored");
        await burst.StopAsync(CancellationToken.None);
        var burstStatistics = burst.Statistics;
        Assert.True(burstStatistics.ClosedBy(BatchCloseReason.Count) >= (Burst / 500) - 2, $"{burstStatistics.ClosedBy(BatchCloseReason.Count)} of {burstStatistics.Batches} by count");
        Assert.True(
            burstStatistics.ClosedBy(BatchCloseReason.Count) >= burstStatistics.Batches * 0.85,
            $"count {burstStatistics.ClosedBy(BatchCloseReason.Count)}, delay {burstStatistics.ClosedBy(BatchCloseReason.Delay)}, bytes {burstStatistics.ClosedBy(BatchCloseReason.Bytes)}, flush {burstStatistics.ClosedBy(BatchCloseReason.Flush)}; waits {burstStatistics.ProducerWaits}");
        Assert.Equal(500, burstStatistics.MaxItems);
    }

    internal static string Body(int i) => $$"""{"seq":{{i}},"note":"{{new string((char)('a' + (i % 26)), 1 + (i % 40))}}","unicode":"zürich ✓"}""";

    internal static List<Message<byte[]?, byte[]?>> Sequence(int from, int count)
    {
        var records = new List<Message<byte[]?, byte[]?>>(count);
        for (var i = from; i < from + count; i++)
        {
            records.Add(Record(i.ToString(System.Globalization.CultureInfo.InvariantCulture), Body(i)));
        }

        return records;
    }

    private static string Identify(byte[]? key, IEnumerable<IHeader>? headers)
    {
        if (key is not null)
        {
            return Encoding.UTF8.GetString(key);
        }

        return Encoding.UTF8.GetString(headers!.First(h => h.Key == "marker").GetValueBytes());
    }

    private static string Identify(byte[]? key, IReadOnlyList<KeyValuePair<string, byte[]>> headers) =>
        key is not null ? Encoding.UTF8.GetString(key) : Encoding.UTF8.GetString(headers.First(h => h.Key == "marker").Value);

    private static async Task ResetGroupAsync(string bootstrap, string group, string topic, int partitions)
    {
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrap }).Build();
        var offsets = Enumerable.Range(0, partitions).Select(p => new TopicPartitionOffset(topic, p, 0)).ToList();
        await WaitUntilAsync(
            async () =>
            {
                try
                {
                    await admin.AlterConsumerGroupOffsetsAsync([new ConsumerGroupTopicPartitionOffsets(group, offsets)]);
                    return true;
                }
                catch (KafkaException)
                {
                    // The crashed member has not timed out of the group yet.
                    return false;
                }
            },
            TimeSpan.FromSeconds(60), "the group's offsets reset");
        var committed = await CommittedAsync(bootstrap, group, topic, partitions);
        Assert.All(committed.Values, offset => Assert.Equal(0, offset));
    }
}
