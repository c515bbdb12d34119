using Ingest.Server.Batching;

namespace Ingest.Server.Tests.Batching;

public sealed class BatcherTests
{
    private static readonly TimeSpan Step = TimeSpan.FromMilliseconds(5);
    private static readonly TimeSpan TestTimeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task A_trickle_of_one_item_every_5_ms_closes_batches_by_delay()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxDelayMs: 50), clock);
        var batches = new List<(BatchCloseReason Reason, int Count, TimeSpan Age, int First)>();

        for (var i = 0; i < 200; i++)
        {
            await batcher.AddAsync(i, sizeBytes: 100);
            clock.Advance(Step);
            while (batcher.TryTake(out var batch))
            {
                using (batch)
                {
                    batches.Add((batch.CloseReason, batch.Count, batch.FirstItemAge, batch[0]));
                }
            }
        }

        Assert.Equal(20, batches.Count);
        Assert.All(batches, b => Assert.Equal(BatchCloseReason.Delay, b.Reason));
        Assert.All(batches, b => Assert.Equal(10, b.Count));
        Assert.All(batches, b => Assert.Equal(TimeSpan.FromMilliseconds(50), b.Age));
        Assert.Equal(Enumerable.Range(0, 20).Select(i => i * 10), batches.Select(b => b.First));

        var stats = batcher.Statistics;
        Assert.Equal(20, stats.ClosedBy(BatchCloseReason.Delay));
        Assert.Equal(0, stats.ClosedBy(BatchCloseReason.Count));
        Assert.Equal(0, stats.ClosedBy(BatchCloseReason.Bytes));
        Assert.Equal(20, stats.Batches);
        Assert.Equal(200, stats.Items);
        Assert.Equal(20_000, stats.Bytes);
        Assert.Equal(10, stats.MinItems);
        Assert.Equal(10, stats.MaxItems);
        Assert.Equal(10.0, stats.AverageItems);
        Assert.Equal(TimeSpan.FromMilliseconds(50), stats.AverageFirstItemAge);
        Assert.Equal(TimeSpan.FromMilliseconds(50), stats.MaxFirstItemAge);
        Assert.Equal(0, stats.ProducerWaits);
    }

    [Fact]
    public async Task A_burst_of_10000_items_closes_10_batches_by_count()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 1_000), clock);
        var consumer = ConsumeAllAsync(batcher);

        for (var i = 0; i < 10_000; i++)
        {
            await batcher.AddAsync(i, sizeBytes: 1_024);
        }

        batcher.Complete();
        var batches = await consumer.WaitAsync(TestTimeout);

        Assert.Equal(10, batches.Count);
        Assert.All(batches, b => Assert.Equal(BatchCloseReason.Count, b.Reason));
        Assert.All(batches, b => Assert.Equal(1_000, b.Items.Length));
        Assert.Equal(Enumerable.Range(0, 10_000), batches.SelectMany(b => b.Items));

        var stats = batcher.Statistics;
        Assert.Equal(10, stats.ClosedBy(BatchCloseReason.Count));
        Assert.Equal(0, stats.ClosedBy(BatchCloseReason.Delay));
        Assert.Equal(0, stats.ClosedBy(BatchCloseReason.Flush));
        Assert.Equal(10_000, stats.Items);
        Assert.Equal(10_000L * 1_024, stats.Bytes);
        Assert.Equal(1_000, stats.ItemsPercentile(50));
        Assert.Equal(1_000, stats.ItemsPercentile(99));
    }

    [Fact]
    public async Task MaxBytes_closes_a_batch_before_the_item_that_would_exceed_it()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxBytes: 1_000), clock);

        for (var i = 0; i < 7; i++)
        {
            await batcher.AddAsync(i, sizeBytes: 300);
        }

        batcher.Flush();

        var batches = TakeAll(batcher);
        Assert.Equal(
            new[] { (BatchCloseReason.Bytes, 3, 900L), (BatchCloseReason.Bytes, 3, 900L), (BatchCloseReason.Flush, 1, 300L) },
            batches.Select(b => (b.Reason, b.Items.Length, b.Bytes)));
        Assert.Equal(2, batcher.Statistics.ClosedBy(BatchCloseReason.Bytes));
        Assert.Equal(1, batcher.Statistics.ClosedBy(BatchCloseReason.Flush));
    }

    [Fact]
    public async Task A_batch_that_reaches_MaxBytes_exactly_closes_by_bytes()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxBytes: 1_000), clock);

        for (var i = 0; i < 10; i++)
        {
            await batcher.AddAsync(i, sizeBytes: 100);
        }

        var batch = Assert.Single(TakeAll(batcher));
        Assert.Equal((BatchCloseReason.Bytes, 10, 1_000L), (batch.Reason, batch.Items.Length, batch.Bytes));
    }

    [Fact]
    public async Task An_item_larger_than_MaxBytes_is_a_batch_of_its_own()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<string>(Options(maxBytes: 1_000, maxPending: 4), clock);

        await batcher.AddAsync("small-1", sizeBytes: 100);
        await batcher.AddAsync("huge", sizeBytes: 5_000);
        await batcher.AddAsync("small-2", sizeBytes: 100);
        batcher.Flush();

        var batches = TakeAll(batcher);
        Assert.Equal(
            new[] { (BatchCloseReason.Bytes, "small-1", 100L), (BatchCloseReason.Bytes, "huge", 5_000L), (BatchCloseReason.Flush, "small-2", 100L) },
            batches.Select(b => (b.Reason, Assert.Single(b.Items), b.Bytes)));
    }

    [Fact]
    public async Task The_delay_counts_from_the_first_item_not_the_latest()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxDelayMs: 50), clock);

        await batcher.AddAsync(1, 10);
        clock.Advance(TimeSpan.FromMilliseconds(49));
        await batcher.AddAsync(2, 10);
        Assert.False(batcher.TryTake(out _));

        clock.Advance(TimeSpan.FromMilliseconds(1));

        Assert.True(batcher.TryTake(out var batch));
        using (batch)
        {
            Assert.Equal(BatchCloseReason.Delay, batch.CloseReason);
            Assert.Equal(new[] { 1, 2 }, batch.Items.ToArray());
            Assert.Equal(TimeSpan.FromMilliseconds(50), batch.FirstItemAge);
        }
    }

    [Fact]
    public async Task A_batch_closed_by_count_does_not_shorten_the_delay_of_the_next()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 2, maxDelayMs: 50), clock);

        await batcher.AddAsync(1, 10);
        await batcher.AddAsync(2, 10);
        clock.Advance(TimeSpan.FromMilliseconds(30));
        await batcher.AddAsync(3, 10);
        clock.Advance(TimeSpan.FromMilliseconds(49));
        Assert.Equal(new[] { (BatchCloseReason.Count, 2) }, TakeAll(batcher).Select(b => (b.Reason, b.Items.Length)));

        clock.Advance(TimeSpan.FromMilliseconds(1));
        var batch = Assert.Single(TakeAll(batcher));
        Assert.Equal((BatchCloseReason.Delay, 1, TimeSpan.FromMilliseconds(50)), (batch.Reason, batch.Items.Length, batch.FirstItemAge));
    }

    [Fact]
    public async Task AddAsync_waits_when_the_consumer_falls_behind_and_resumes_when_a_batch_is_taken()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 1, maxPending: 2), clock);

        await batcher.AddAsync(1, 10);
        await batcher.AddAsync(2, 10);
        var third = batcher.AddAsync(3, 10).AsTask();

        Assert.False(third.IsCompleted);
        Assert.Equal(2, batcher.PendingBatches);
        Assert.Equal(1, batcher.Statistics.ProducerWaits);

        Assert.True(batcher.TryTake(out var first));
        first.Dispose();
        await third.WaitAsync(TestTimeout);

        Assert.Equal(2, batcher.PendingBatches);
        Assert.Equal(new[] { 2, 3 }, TakeAll(batcher).SelectMany(b => b.Items));
        Assert.Equal(3, batcher.Statistics.Items);
    }

    [Fact]
    public async Task Backpressure_bounds_pending_batches_while_a_slow_consumer_catches_up()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 10, maxPending: 2), clock);
        var maxPending = 0;
        var received = new List<int>();
        var consumer = Task.Run(async () =>
        {
            while (await batcher.TakeAsync() is { } batch)
            {
                using (batch)
                {
                    maxPending = Math.Max(maxPending, batcher.PendingBatches);
                    received.AddRange(batch.Items);
                    await Task.Yield();
                }
            }
        });

        for (var i = 0; i < 5_000; i++)
        {
            await batcher.AddAsync(i, 1);
        }

        batcher.Complete();
        await consumer.WaitAsync(TestTimeout);

        Assert.Equal(Enumerable.Range(0, 5_000), received);
        Assert.InRange(maxPending, 0, 3);
        Assert.Equal(500, batcher.Statistics.ClosedBy(BatchCloseReason.Count));
    }

    [Fact]
    public async Task Complete_delivers_the_partial_batch_then_signals_the_end()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(), clock);

        await batcher.AddAsync(1, 10);
        await batcher.AddAsync(2, 10);
        await batcher.AddAsync(3, 10);
        batcher.Complete();

        var batch = await batcher.TakeAsync();
        Assert.NotNull(batch);
        Assert.Equal(BatchCloseReason.Flush, batch.CloseReason);
        Assert.Equal(new[] { 1, 2, 3 }, batch.Items.ToArray());
        batch.Dispose();
        Assert.Null(await batcher.TakeAsync());
        Assert.Equal(1, batcher.Statistics.ClosedBy(BatchCloseReason.Flush));
        await Assert.ThrowsAsync<InvalidOperationException>(() => batcher.AddAsync(4, 10).AsTask());
    }

    [Fact]
    public async Task Complete_wakes_a_waiting_consumer_and_fails_a_waiting_producer()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 1, maxPending: 1), clock);
        await batcher.AddAsync(1, 10);
        var blockedProducer = batcher.AddAsync(2, 10).AsTask();

        var first = await batcher.TakeAsync();
        first!.Dispose();
        await blockedProducer.WaitAsync(TestTimeout);
        var second = await batcher.TakeAsync();
        second!.Dispose();

        var waitingConsumer = batcher.TakeAsync().AsTask();
        Assert.False(waitingConsumer.IsCompleted);
        await batcher.AddAsync(3, 10);
        var stillBlocked = batcher.AddAsync(4, 10).AsTask();
        (await waitingConsumer.WaitAsync(TestTimeout))!.Dispose();
        await stillBlocked.WaitAsync(TestTimeout);

        var blockedAtComplete = batcher.AddAsync(5, 10).AsTask();
        Assert.False(blockedAtComplete.IsCompleted);
        batcher.Complete();

        await Assert.ThrowsAsync<InvalidOperationException>(() => blockedAtComplete.WaitAsync(TestTimeout));
        Assert.Equal(new[] { 4 }, TakeAll(batcher).SelectMany(b => b.Items));
        Assert.Null(await batcher.TakeAsync().AsTask().WaitAsync(TestTimeout));
    }

    [Fact]
    public async Task Flush_closes_the_open_batch_and_does_nothing_when_it_is_empty()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(), clock);

        batcher.Flush();
        Assert.False(batcher.TryTake(out _));

        await batcher.AddAsync(7, 10);
        clock.Advance(TimeSpan.FromMilliseconds(20));
        batcher.Flush();

        var batch = Assert.Single(TakeAll(batcher));
        Assert.Equal((BatchCloseReason.Flush, 1, TimeSpan.FromMilliseconds(20)), (batch.Reason, batch.Items.Length, batch.FirstItemAge));

        // The delay timer of the flushed batch must not close anything later.
        clock.Advance(TimeSpan.FromSeconds(1));
        Assert.False(batcher.TryTake(out _));
        Assert.Equal(1, batcher.Statistics.Batches);
    }

    [Fact]
    public async Task A_cancelled_take_throws_and_leaves_the_batcher_usable()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(), clock);
        using var cts = new CancellationTokenSource();

        var take = batcher.TakeAsync(cts.Token).AsTask();
        Assert.False(take.IsCompleted);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => take);

        await batcher.AddAsync(1, 10);
        batcher.Flush();
        using var batch = await batcher.TakeAsync();
        Assert.Equal(new[] { 1 }, batch!.Items.ToArray());
    }

    [Fact]
    public async Task A_cancelled_wait_for_room_does_not_add_the_item()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 1, maxPending: 1), clock);
        using var cts = new CancellationTokenSource();

        await batcher.AddAsync(1, 10);
        var blocked = batcher.AddAsync(2, 10, cts.Token).AsTask();
        Assert.False(blocked.IsCompleted);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => blocked);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => batcher.AddAsync(3, 10, cts.Token).AsTask());
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => batcher.TakeAsync(cts.Token).AsTask());

        Assert.Equal(new[] { 1 }, TakeAll(batcher).SelectMany(b => b.Items));
        Assert.Equal(1, batcher.Statistics.Items);
    }

    [Fact]
    public async Task A_disposed_batch_lends_its_list_to_the_next_one()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<string>(Options(maxMessages: 2), clock);

        await batcher.AddAsync("a", 1);
        await batcher.AddAsync("b", 1);
        Assert.True(batcher.TryTake(out var first));
        first.Dispose();
        first.Dispose();

        await batcher.AddAsync("c", 1);
        await batcher.AddAsync("d", 1);
        Assert.True(batcher.TryTake(out var second));

        Assert.Same(first, second);
        Assert.Equal(new[] { "c", "d" }, second.Items.ToArray());
        Assert.Equal(2, second.Bytes);
        second.Dispose();
    }

    [Fact]
    public async Task ReadAllAsync_yields_every_batch_until_complete()
    {
        var clock = new ManualTimeProvider();
        using var batcher = new Batcher<int>(Options(maxMessages: 3, maxPending: 3), clock);
        for (var i = 0; i < 7; i++)
        {
            await batcher.AddAsync(i, 1);
        }

        batcher.Complete();
        var seen = new List<(BatchCloseReason, int)>();
        await foreach (var batch in batcher.ReadAllAsync())
        {
            using (batch)
            {
                seen.Add((batch.CloseReason, batch.Count));
            }
        }

        Assert.Equal(new[] { (BatchCloseReason.Count, 3), (BatchCloseReason.Count, 3), (BatchCloseReason.Flush, 1) }, seen);
    }

    [Fact]
    public async Task With_the_system_clock_a_lone_item_is_delivered_by_the_delay_timer()
    {
        using var batcher = new Batcher<int>(Options(maxDelayMs: 10));

        await batcher.AddAsync(1, 10);
        using var batch = await batcher.TakeAsync().AsTask().WaitAsync(TestTimeout);

        Assert.Equal(BatchCloseReason.Delay, batch!.CloseReason);
        Assert.True(batch.FirstItemAge >= TimeSpan.FromMilliseconds(10), $"closed after {batch.FirstItemAge}");
    }

    [Fact]
    public void Invalid_options_are_rejected_naming_the_setting()
    {
        var error = Assert.Throws<ArgumentException>(() => new Batcher<int>(new BatchingOptions { MaxDelay = TimeSpan.Zero }));
        Assert.Contains("Ingest:Batching:MaxDelay must be > 0", error.Message, StringComparison.Ordinal);
    }

    private static BatchingOptions Options(int maxMessages = 1_000, long maxBytes = 4L * 1024 * 1024, int maxDelayMs = 50, int maxPending = 2) => new()
    {
        MaxMessages = maxMessages,
        MaxBytes = maxBytes,
        MaxDelay = TimeSpan.FromMilliseconds(maxDelayMs),
        MaxPendingBatches = maxPending,
    };

    private static List<TakenBatch<T>> TakeAll<T>(Batcher<T> batcher)
    {
        var batches = new List<TakenBatch<T>>();
        while (batcher.TryTake(out var batch))
        {
            using (batch)
            {
                batches.Add(TakenBatch<T>.Copy(batch));
            }
        }

        return batches;
    }

    private static async Task<List<TakenBatch<int>>> ConsumeAllAsync(Batcher<int> batcher)
    {
        await Task.Yield();
        var batches = new List<TakenBatch<int>>();
        while (await batcher.TakeAsync() is { } batch)
        {
            using (batch)
            {
                batches.Add(TakenBatch<int>.Copy(batch));
            }
        }

        return batches;
    }
}
