using Confluent.Kafka;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// The consume thread's wait for the writer, without a broker: short waits block, long ones pause
/// fetching but keep polling, and what arrives while paused is read again after the resume.
/// </summary>
public sealed class KafkaFlowControlTests
{
    private static readonly TimeSpan Soon = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    private readonly KafkaConnectionStatus _connection = new();
    private readonly KafkaPartitionTable _partitions = new("src");

    [Fact]
    public void A_hand_over_that_completed_returns_at_once_without_touching_the_consumer()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var flow = Flow(pauseAfter: Soon);

        flow.WaitFor(consumer, ValueTask.CompletedTask);

        Assert.Empty(consumer.Calls);
        Assert.False(flow.IsPaused);
    }

    [Fact]
    public void A_wait_shorter_than_the_pause_threshold_blocks_without_pausing_or_polling()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var flow = Flow(pauseAfter: Patience);

        flow.WaitFor(consumer, new ValueTask(Task.Delay(50)));

        Assert.Empty(consumer.Calls);
        Assert.False(flow.IsPaused);
    }

    [Fact]
    public void The_default_threshold_is_one_second()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var flow = new KafkaFlowControl("src", _connection, Housekeeping(), NullLogger.Instance);

        flow.WaitFor(consumer, new ValueTask(Task.Delay(300)));

        Assert.Empty(consumer.Calls);
    }

    [Fact]
    public void A_longer_wait_pauses_the_assignment_keeps_polling_and_resumes_once_the_writer_takes_the_item()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0), new TopicPartition("t", 1));
        var flow = Flow(pauseAfter: Soon);

        WaitUntilThenTake(flow, consumer, () => flow.IsPaused && consumer.Polls >= 3);

        Assert.False(flow.IsPaused);
        var calls = consumer.Calls;
        Assert.Equal("pause t[0],t[1]", calls[0]);
        Assert.Equal("poll", calls[1]);
        Assert.Equal("resume t[0],t[1]", calls[^1]);
        Assert.Single(calls, static c => c.StartsWith("pause", StringComparison.Ordinal));
        Assert.DoesNotContain(calls, static c => c.StartsWith("seek", StringComparison.Ordinal));
    }

    [Fact]
    public void Records_that_arrive_while_paused_are_rewound_to_the_lowest_offset_per_partition_before_the_resume()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0), new TopicPartition("t", 1));
        consumer.Deliver("t", 0, 7);
        consumer.Deliver("t", 0, 5);
        consumer.Deliver("t", 0, 6);
        consumer.Deliver("t", 1, 3);
        consumer.Deliver("t", 1, 9, endOfPartition: true);
        var flow = Flow(pauseAfter: Soon);

        WaitUntilThenTake(flow, consumer, () => consumer.Polls >= 6);

        var calls = consumer.Calls;
        var seeks = calls.Where(static c => c.StartsWith("seek", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ToList();
        Assert.Equal(["seek t[0]@5", "seek t[1]@3"], seeks);
        Assert.True(calls.ToList().LastIndexOf("seek t[1]@3") < calls.Count - 1, "the rewinds come before the resume");
        Assert.Equal("resume t[0],t[1]", calls[^1]);
    }

    [Fact]
    public void Records_that_name_no_topic_are_rewound_on_the_sources_only_topic()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0), new TopicPartition("t", 1));
        consumer.Deliver(null, 0, 7);
        consumer.Deliver(null, 1, 3);
        var flow = new KafkaFlowControl("src", _connection, Housekeeping(), NullLogger.Instance, Soon, onlyTopic: "t");

        WaitUntilThenTake(flow, consumer, () => consumer.Polls >= 4);

        var seeks = consumer.Calls.Where(static c => c.StartsWith("seek", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ToList();
        Assert.Equal(["seek t[0]@7", "seek t[1]@3"], seeks);
    }

    [Fact]
    public void A_source_reads_topic_names_only_when_it_may_read_more_than_one_topic()
    {
        Assert.Equal("orders", KafkaConsumeFields.OnlyTopic(["orders"]));
        Assert.Null(KafkaConsumeFields.OnlyTopic(["orders", "refunds"]));
        Assert.Null(KafkaConsumeFields.OnlyTopic(["^orders-.*"]));
        var one = new ConsumerConfig();
        var several = new ConsumerConfig();

        KafkaConsumeFields.Apply(one, "orders");
        KafkaConsumeFields.Apply(several, onlyTopic: null);

        Assert.Equal("headers", one.Get(ConfigPropertyNames.Consumer.ConsumeResultFields));
        Assert.Equal("headers,topic", several.Get(ConfigPropertyNames.Consumer.ConsumeResultFields));
    }

    [Fact]
    public void A_rebalance_during_the_pause_pauses_the_new_assignment_and_drops_the_rewinds_of_released_partitions()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0), new TopicPartition("t", 1));
        var flow = Flow(pauseAfter: Soon);
        consumer.Deliver("t", 0, 4);
        consumer.Deliver("t", 1, 8);
        consumer.Then(() =>
        {
            // What the rebalance callbacks do inside a poll: t[0] goes, t[2] comes.
            consumer.Reassign(new TopicPartition("t", 1), new TopicPartition("t", 2));
            flow.OnAssignmentChanged([new TopicPartitionOffset("t", 0, Offset.Unset)]);
            flow.OnAssignmentChanged();
        });
        consumer.Deliver("t", 2, 11);

        WaitUntilThenTake(flow, consumer, () => consumer.Polls >= 6);

        var calls = consumer.Calls;
        Assert.Equal(["pause t[0],t[1]", "pause t[1],t[2]"], calls.Where(static c => c.StartsWith("pause", StringComparison.Ordinal)));
        var seeks = calls.Where(static c => c.StartsWith("seek", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ToList();
        Assert.Equal(["seek t[1]@8", "seek t[2]@11"], seeks);
        Assert.Equal("resume t[1],t[2]", calls[^1]);
    }

    [Fact]
    public void A_hand_over_that_fails_after_a_pause_is_rethrown_once_fetching_has_resumed()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var flow = Flow(pauseAfter: Soon);
        var taken = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var waiting = Task.Run(() => flow.WaitFor(consumer, new ValueTask(taken.Task)));
        Assert.True(SpinWait.SpinUntil(() => flow.IsPaused, Patience));
        taken.SetException(new InvalidOperationException("the writer stopped"));

        var thrown = Assert.Throws<AggregateException>(() => waiting.Wait(Patience));
        Assert.Equal("the writer stopped", Assert.IsType<InvalidOperationException>(thrown.InnerException).Message);
        Assert.False(flow.IsPaused);
        Assert.Equal("resume t[0]", consumer.Calls[^1]);
    }

    [Fact]
    public void A_hand_over_that_fails_before_the_threshold_is_rethrown_without_a_pause()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var flow = Flow(pauseAfter: Patience);

        var thrown = Assert.Throws<InvalidOperationException>(() => flow.WaitFor(consumer, new ValueTask(Task.Delay(20).ContinueWith(
            static _ => throw new InvalidOperationException("the writer stopped"), TaskScheduler.Default))));

        Assert.Equal("the writer stopped", thrown.Message);
        Assert.Empty(consumer.Calls);
    }

    [Fact]
    public void A_poll_that_fails_while_paused_is_recorded_on_the_connection_and_polling_goes_on()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        consumer.Fail("broker gone");
        consumer.Deliver("t", 0, 2);
        var flow = Flow(pauseAfter: Soon);

        WaitUntilThenTake(flow, consumer, () => consumer.Polls >= 4);

        Assert.Equal("broker gone", _connection.Error);
        Assert.Contains("seek t[0]@2", consumer.Calls);
    }

    [Fact]
    public void Durable_offsets_still_reach_the_offset_store_while_fetching_is_paused()
    {
        var consumer = new ScriptedConsumer(new TopicPartition("t", 0));
        var state = _partitions.Assign("t", 0);
        _partitions.RecordDurable([new IngestItem(IngestItemKind.Put, "a", "c", "{}"u8.ToArray(), null, new ItemPosition(state.Origin, 0, 41, 0))]);
        var flow = Flow(pauseAfter: Soon);
        var pausedWhenStored = false;

        WaitUntilThenTake(flow, consumer, () => consumer.Calls.Contains("store t[0]@42") && (pausedWhenStored = flow.IsPaused));

        Assert.True(pausedWhenStored);

        Assert.Equal(100, _partitions.HighWatermarkOf(state));
    }

    // Hands over an item the writer takes only once `until` holds (the flow control meanwhile waits, paused), then lets it return.
    private static void WaitUntilThenTake(KafkaFlowControl flow, ScriptedConsumer consumer, Func<bool> until)
    {
        var taken = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var waiting = Task.Run(() => flow.WaitFor(consumer, new ValueTask(taken.Task)));
        Assert.True(SpinWait.SpinUntil(until, Patience), "the awaited state was not reached");
        Assert.False(waiting.IsCompleted);
        taken.SetResult();
        Assert.True(waiting.Wait(Patience));
    }

    private KafkaFlowControl Flow(TimeSpan pauseAfter) =>
        new("src", _connection, Housekeeping(), NullLogger.Instance, pauseAfter);

    private KafkaHousekeeping Housekeeping() =>
        new(new KafkaOffsetStorer("src", _partitions, NullLogger.Instance), new KafkaWatermarkRefresher(_partitions));
}
