using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// The task hands batches to Kafka while earlier ones are still being acknowledged, yet records
/// progress only over batches acknowledged in full, in feed order. One batch's acknowledgement is
/// held back (then failed) on top of a real broker's, while the batches after it are acknowledged.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlPipeliningTests(BrokerFixture brokers) : IDisposable
{
    private const int Documents = 120;

    // ~10 orders a batch, 4 batches in flight: a dozen batches, the second one held.
    private static readonly EtlPipelineLimits SmallBatches = new(4 * 1024, TimeSpan.FromSeconds(5), 4);

    private readonly TempDocumentStore _store = new();

    private string ErrorLog => _store.Beside("etl-errors.json");

    [Fact]
    public async Task Progress_never_passes_an_unacknowledged_batch_and_after_its_failure_everything_from_it_is_sent_again()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, Documents, Padded));
        var destinations = new HoldingDestinations(heldBatch: 1);

        await using var runner = await StartAsync(store, KafkaTask(bootstrap, topic), destinations);

        // Pipelined: the batches after the held one are handed over (and acknowledged) while it is not.
        await destinations.WaitSentAsync(SmallBatches.MaxBatchesInFlight + 1);
        var sent = destinations.Sent;
        await Task.WhenAll(sent.Skip(2).Take(SmallBatches.MaxBatchesInFlight - 1).Select(static b => b.Acknowledged));
        var firstBatchEnd = sent[0].Messages[^1].Etag;
        await WaitAsync(() => runner.GetStatus().LastSentEtag == firstBatchEnd);
        await Task.Delay(500); // time for a wrong implementation to record the acknowledged batches behind the held one
        Assert.Equal(firstBatchEnd, runner.GetStatus().LastSentEtag);
        Assert.Equal(firstBatchEnd, Progress(store));

        destinations.Fail("injected: the broker did not acknowledge");
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        // A new producer sends everything after the last recorded progress again, from the held batch on.
        var resent = destinations.Sent.Where(static b => b.Destination == 1).SelectMany(static b => b.Messages).ToList();
        Assert.Equal(firstBatchEnd + 1, resent[0].Etag);
        Assert.Equal(Enumerable.Range((int)firstBatchEnd + 1, Documents - (int)firstBatchEnd).Select(static e => (long)e), resent.Select(static m => m.Etag));
        var status = runner.GetStatus();
        Assert.Equal(EtlTaskState.Running, status.State);
        Assert.Contains("injected", status.LastError, StringComparison.Ordinal);

        var handedOver = destinations.Sent.Sum(static b => b.Messages.Count);
        var records = EtlTestKit.ConsumeKafka(bootstrap, topic, handedOver);
        Assert.Equal(Enumerable.Range(1, Documents).Select(static i => $"orders/{i}@{i}").Order(StringComparer.Ordinal), records.Select(static r => r.Event.Id!).Distinct().Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task After_a_stop_with_batches_in_flight_only_the_unacknowledged_tail_is_sent_again()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, Documents, Padded));
        var definition = KafkaTask(bootstrap, topic);
        var first = new HoldingDestinations(heldBatch: 1);
        long recorded;
        int sentBefore;
        await using (var runner = await StartAsync(store, definition, first))
        {
            await first.WaitSentAsync(SmallBatches.MaxBatchesInFlight + 1);
            recorded = first.Sent[0].Messages[^1].Etag;
            await WaitAsync(() => runner.GetStatus().LastSentEtag == recorded);
            // The window is full, so nothing more is handed over; wait until the broker has every handed-over batch
            // (only the runner's view of one is held), or stopping could drop the last one's messages before they
            // left the producer and the count below would be one batch short (seen under load).
            await Task.WhenAll(first.Sent.Select(static b => b.Acknowledged));
            sentBefore = first.Sent.Sum(static b => b.Messages.Count);
        }

        // Stopped with the held batch and those after it unrecorded (a crash leaves the same progress).
        Assert.Equal(recorded, Progress(store));
        var second = new HoldingDestinations(heldBatch: -1);
        await using (var runner = await StartAsync(store, definition, second))
        {
            await EtlTestKit.WaitCaughtUpAsync(runner, store);
        }

        var resent = second.Sent.SelectMany(static b => b.Messages).Select(static m => m.Etag).ToList();
        Assert.Equal(Enumerable.Range((int)recorded + 1, Documents - (int)recorded).Select(static e => (long)e), resent);

        // Exactly the first run's unrecorded tail arrives twice; nothing before it does.
        var records = EtlTestKit.ConsumeKafka(bootstrap, topic, sentBefore + resent.Count);
        var twice = records.GroupBy(static r => r.Event.Id!).Where(static g => g.Count() > 1).Select(static g => g.Key).ToHashSet();
        Assert.All(twice, id => Assert.True(long.Parse(id.Split('@')[1], System.Globalization.CultureInfo.InvariantCulture) > recorded, id));
        Assert.Equal(Documents, records.Select(static r => r.Event.Id).Distinct().Count());
    }

    [Fact]
    public async Task Bodies_stay_intact_until_their_batch_is_acknowledged_though_later_batches_reuse_read_buffers()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, Documents, static i => $$"""{"N":{{i}},"Note":"{{new string((char)('a' + (i % 26)), 300 + i)}}"}"""));
        BodyCheckingDestination? destination = null;
        var runner = new EtlTaskRunner(
            KafkaTask(bootstrap, topic), store, new EtlErrorLog(ErrorLog), d => destination = new BodyCheckingDestination(EtlService.CreateDestination(d), store),
            NullLogger.Instance, TimeProvider.System, SmallBatches);
        await using (runner)
        {
            await runner.StartAsync();
            await EtlTestKit.WaitCaughtUpAsync(runner, store);
        }

        Assert.NotNull(destination);
        Assert.True(destination.Batches > SmallBatches.MaxBatchesInFlight * 2, $"{destination.Batches} batches");
        Assert.Empty(destination.Mismatches);
        Assert.Equal(Documents, store.GetConsumers().Single().AcknowledgedEtag);
    }

    [Fact]
    public async Task A_store_that_closes_under_the_task_leaves_it_errored_with_the_reason()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, 5));
        await using var runner = await StartAsync(store, KafkaTask(bootstrap, topic), new HoldingDestinations(heldBatch: -1));
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        store.Dispose();
        await WaitAsync(() => runner.GetStatus().State == EtlTaskState.Errored);

        var status = runner.GetStatus();
        Assert.StartsWith("stopped: ", status.LastError, StringComparison.Ordinal);
        Assert.Contains(nameof(DocumentStore), status.LastError, StringComparison.Ordinal);
        Assert.NotNull(status.LastErrorTime);
        Assert.Equal(5, status.LastSentEtag);
    }

    private static string Padded(int i) => $$"""{"N":{{i}},"Region":"eu","Note":"{{new string('x', 300)}}"}""";

    private static long Progress(DocumentStore store) => store.GetConsumers().Single().AcknowledgedEtag;

    private async Task<EtlTaskRunner> StartAsync(DocumentStore store, EtlTaskDefinition definition, HoldingDestinations destinations)
    {
        var runner = new EtlTaskRunner(definition, store, new EtlErrorLog(ErrorLog), destinations.Create, NullLogger.Instance, TimeProvider.System, SmallBatches);
        await runner.StartAsync();
        return runner;
    }

    private static async Task WaitAsync(Func<bool> condition)
    {
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while (!condition())
        {
            await Task.Delay(20, timeout.Token);
        }
    }

    private Task<(string Bootstrap, string Topic)> NewTopicAsync() => EtlTestKit.NewKafkaTopicAsync(brokers, "etl-pipe");

    private static EtlTaskDefinition KafkaTask(string bootstrap, string topic) => EtlTestKit.KafkaTask("orders-pipe", bootstrap, topic);

    public void Dispose() => _store.Dispose();
}
