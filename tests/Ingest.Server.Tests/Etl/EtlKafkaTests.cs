using System.Text;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources;
using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Etl;

[Collection(BrokerFixture.Collection)]
public sealed class EtlKafkaTests(BrokerFixture brokers) : IDisposable
{
    private readonly TempDocumentStore _store = new();

    private string ErrorLog => _store.Beside("etl-errors.json");

    [Fact]
    public async Task Puts_and_deletes_arrive_as_cloud_events_keyed_by_document_in_etag_order()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, 20));
        await store.WriteAsync(new WriteBatch().Put("customers/1", "Customers", """{"Name":"not sent"}"""));
        await store.WriteAsync(new WriteBatch().Put("orders/5", "Orders", """{"N":5,"Version":2}""").Delete("orders/3"));
        var expected = store.GetChangesSince(0, 100).Where(static c => c.Collection == "Orders").ToList();

        await using var runner = await EtlTestKit.StartAsync(store, KafkaTask(bootstrap, topic), ErrorLog);
        var records = EtlTestKit.ConsumeKafka(bootstrap, topic, expected.Count);
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        Assert.Equal(expected.Count, records.Count);
        foreach (var change in expected)
        {
            var (key, _, cloudEvent, headers) = Assert.Single(records, r => r.Event.Id == $"{change.Id}@{change.Etag}");
            Assert.Equal(change.Id, key);
            Assert.Equal(change.Id, cloudEvent.Subject);
            Assert.Equal("/ingest/test/Orders", cloudEvent.Source!.OriginalString);
            Assert.Equal(new DateTimeOffset(change.LastModified), cloudEvent.Time);
            Assert.Equal("1.0", Encoding.UTF8.GetString(headers.GetLastBytes("ce_specversion")));
            if (change.IsDeleted)
            {
                Assert.Equal(DocumentEventTypes.Deleted, cloudEvent.Type);
                Assert.Null(cloudEvent.Data);
                Assert.Null(cloudEvent.DataContentType);
            }
            else
            {
                Assert.Equal(DocumentEventTypes.Put, cloudEvent.Type);
                Assert.Equal("application/json", cloudEvent.DataContentType);
                Assert.Equal(change.Body.ToArray(), (byte[])cloudEvent.Data!);
            }
        }

        // Every event of a document is on one partition, in etag order.
        foreach (var document in records.GroupBy(static r => r.Key))
        {
            Assert.Single(document.Select(static r => r.Partition).Distinct());
            var etags = document.Select(static r => long.Parse(r.Event.Id!.Split('@')[1], System.Globalization.CultureInfo.InvariantCulture)).ToList();
            Assert.Equal(etags.Order(), etags);
        }

        Assert.Equal(store.LastEtag, store.GetConsumers().Single(static c => c.Name == "etl/orders-out").AcknowledgedEtag);
    }

    [Fact]
    public async Task A_restarted_task_resumes_after_the_last_acknowledged_change_without_loss()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        var definition = KafkaTask(bootstrap, topic);
        await store.WriteAsync(EtlTestKit.Orders(1, 30));
        await using (var first = await EtlTestKit.StartAsync(store, definition, ErrorLog))
        {
            await EtlTestKit.WaitCaughtUpAsync(first, store);
        }

        // Written while the task is stopped; a delete whose tombstone the task must still see.
        await store.WriteAsync(EtlTestKit.Orders(31, 50).Delete("orders/7"));
        Assert.Equal(30, store.GetConsumers().Single().AcknowledgedEtag);
        await using var second = await EtlTestKit.StartAsync(store, definition, ErrorLog);
        var records = EtlTestKit.ConsumeKafka(bootstrap, topic, 51);
        await EtlTestKit.WaitCaughtUpAsync(second, store);

        var ids = records.Select(static r => r.Event.Id).ToList();
        Assert.Equal(51, ids.Distinct().Count());
        Assert.Contains("orders/7@51", ids);
        Assert.Equal(51, records.Count); // a clean stop leaves nothing unacknowledged to send twice
    }

    [Fact]
    public async Task A_transform_error_is_recorded_the_flow_goes_on_and_a_retry_after_the_fix_sends_it()
    {
        var (bootstrap, topic) = await NewTopicAsync();
        var store = _store.Store;
        var broken = KafkaTask(bootstrap, topic);
        broken.Script = "function transform(doc, meta) { if (doc.N % 4 === 0) throw new Error('cannot price ' + meta.id); return { key: 'k-' + doc.N, body: { n: doc.N }, headers: { kind: 'order' } }; }";
        await store.WriteAsync(EtlTestKit.Orders(1, 12));

        await using (var runner = await EtlTestKit.StartAsync(store, broken, ErrorLog))
        {
            var records = EtlTestKit.ConsumeKafka(bootstrap, topic, 9);
            await EtlTestKit.WaitCaughtUpAsync(runner, store);

            Assert.Equal(["k-1", "k-10", "k-11", "k-2", "k-3", "k-5", "k-6", "k-7", "k-9"], records.Select(static r => r.Key).Order(StringComparer.Ordinal));
            Assert.All(records, static r => Assert.Equal("order", Encoding.UTF8.GetString(r.Headers.GetLastBytes("kind"))));
            var errors = runner.Errors.List(0, 100);
            Assert.Equal(["orders/4", "orders/8", "orders/12"], errors.Select(static e => e.DocumentId));
            Assert.Contains("cannot price orders/8", errors[1].Error, StringComparison.Ordinal);
            Assert.Equal(store.LastEtag, runner.GetStatus().LastSentEtag);
        }

        // The fix: the same task with a corrected script keeps its error list and retries from it.
        var fixedTask = KafkaTask(bootstrap, topic);
        fixedTask.Script = "function transform(doc) { return { key: 'k-' + doc.N, body: { n: doc.N } }; }";
        await using var repaired = await EtlTestKit.StartAsync(store, fixedTask, ErrorLog);
        var error = repaired.Errors.List(0, 100)[1];
        var outcome = await repaired.RetryAsync(error, CancellationToken.None);

        Assert.Equal(1, outcome.MessagesSent);
        Assert.Contains(EtlTestKit.ConsumeKafka(bootstrap, topic, 10), static r => r.Key == "k-8" && r.Event.Id == "orders/8@8");
        Assert.Equal(["orders/4", "orders/12"], repaired.Errors.List(0, 100).Select(static e => e.DocumentId));
    }

    [Fact]
    public async Task An_unreachable_broker_makes_the_task_retry_and_report_without_recording_progress_or_losing_tombstones()
    {
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, 3));
        await store.WriteAsync(new WriteBatch().Delete("orders/2"));
        var definition = KafkaTask($"127.0.0.1:{Ingest.Testing.LocalPorts.Unused()}", "nowhere");
        definition.Kafka!.Settings["message.timeout.ms"] = "1500";

        await using var runner = await EtlTestKit.StartAsync(store, definition, ErrorLog);
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while (runner.GetStatus().State != EtlTaskState.Retrying)
        {
            await Task.Delay(50, timeout.Token);
        }

        var status = runner.GetStatus();
        Assert.Contains("Kafka did not acknowledge", status.LastError, StringComparison.Ordinal);
        Assert.Equal(0, status.LastSentEtag);
        Assert.Equal(4, status.LagChanges);
        Assert.Equal(0, store.GetConsumers().Single().AcknowledgedEtag);
        Assert.Equal(0, await store.PurgeTombstonesAsync());
        Assert.Contains(store.GetChangesSince(0), static c => c.IsDeleted && c.Id == "orders/2");
    }

    private Task<(string Bootstrap, string Topic)> NewTopicAsync() => EtlTestKit.NewKafkaTopicAsync(brokers, "etl");

    private static EtlTaskDefinition KafkaTask(string bootstrap, string topic) => EtlTestKit.KafkaTask("orders-out", bootstrap, topic);

    public void Dispose() => _store.Dispose();
}
