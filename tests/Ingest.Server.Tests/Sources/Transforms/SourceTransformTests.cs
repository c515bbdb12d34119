using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.RabbitMq;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources.RabbitMq;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using RabbitMQ.Client;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Transforms;

/// <summary>Sources with a transform script, against the real brokers: every kind of result, and failures that become dead letters.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class SourceTransformTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(90);

    // One script for every case, chosen by the message's "kind".
    private const string Script = """
        function transform(body, message) {
          if (body === null) return { op: 'delete', id: message.key };
          switch (body.kind) {
            case 'reshape':
              return { id: 'order/' + body.n, collection: 'orders',
                       body: { total: body.price * body.qty, customer: message.headers.customer, from: message.topic || message.queue,
                               partition: message.partition, offset: message.offset, key: message.key, messageId: message.messageId, source: message.source } };
            case 'fanout': return body.lines.map((line, i) => ({ id: 'line/' + body.n + '/' + i, collection: 'lines', body: line }));
            case 'delete': return { op: 'delete', id: 'order/' + body.n };
            case 'skip': return;
            case 'throw': throw new Error('bad message ' + body.n);
            case 'loop': while (true) {}
            case 'half-bad': return [{ id: 'half/1', body: {} }, { id: 'half/2', collection: 'bad\u0001name', body: {} }];
            case 'plain': return { id: 'plain/' + body.n, body: body };
          }
        }
        """;

    private static readonly string[] Messages =
    [
        """{"kind":"reshape","n":1,"price":2.5,"qty":4}""",
        """{"kind":"reshape","n":2,"price":10,"qty":3}""",
        """{"kind":"fanout","n":3,"lines":[{"sku":"a"},{"sku":"b"},{"sku":"c"}]}""",
        """{"kind":"delete","n":1}""",
        """{"kind":"skip","n":5}""",
        """{"kind":"throw","n":6}""",
        """{"kind":"loop","n":7}""",
        """{"kind":"half-bad","n":8}""",
        """{"kind":"plain","n":9}""",
    ];

    [Fact]
    public async Task A_kafka_source_script_reshapes_fans_out_deletes_and_skips_and_failures_become_dead_letters_while_the_source_goes_on()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-transform");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        var records = Messages.Select((m, i) => Record($"k{i}", m, ("customer", "acme"))).ToList();
        records.Add(Record("line/3/1", null));
        await ProduceAsync(kafka.BootstrapServers, topic, records);
        using var temp = new TempDocumentStore();
        var options = Options(kafka.BootstrapServers, topic, NewName("group"));
        options.Script = Script;
        options.ScriptTimeoutMs = 200;
        await using var source = Source("transformed", options, temp.Store);

        await source.StartAsync(CancellationToken.None);
        var origin = SourceOrigin.Of("transformed", topic);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == records.Count, Timeout, "every record's offset stored");
        await source.StopAsync(CancellationToken.None);

        var order2 = Body(temp.Store, "order/2", "orders");
        Assert.Equal(30, order2.GetProperty("total").GetInt32());
        Assert.Equal("acme", order2.GetProperty("customer").GetString());
        Assert.Equal(topic, order2.GetProperty("from").GetString());
        Assert.Equal(0, order2.GetProperty("partition").GetInt32());
        Assert.Equal(1, order2.GetProperty("offset").GetInt64());
        Assert.Equal("k1", order2.GetProperty("key").GetString());
        Assert.Equal(JsonValueKind.Null, order2.GetProperty("messageId").ValueKind);
        Assert.Equal("transformed", order2.GetProperty("source").GetString());
        AssertCommonOutcome(temp.Store, topic);
        // The tombstone keyed by the fanned-out line deleted it.
        Assert.Null(temp.Store.Get("line/3/1"));

        // Every operation of a message records that message's log position, deletes included.
        Assert.Equal(new LogPosition(topic, 0, 1), temp.Store.Get("order/2")!.Position);
        Assert.Equal(new LogPosition(topic, 0, 2), temp.Store.Get("line/3/0")!.Position);
        Assert.Equal(new LogPosition(topic, 0, 2), temp.Store.Get("line/3/2")!.Position);
        var tombstones = temp.Store.GetChangesSince(0, 100).Where(static c => c.IsDeleted).ToDictionary(static c => c.Id, static c => c.Position);
        Assert.Equal(new LogPosition(topic, 0, 3), tombstones["order/1"]);
        Assert.Equal(new LogPosition(topic, 0, Messages.Length), tombstones["line/3/1"]);
        Assert.Equal(4, temp.Store.GetStats().DocumentCount);
        var status = source.GetStatus();
        Assert.Equal(3, status.DeadLetters);
        Assert.Equal(records.Count, status.Consumed);
    }

    [Fact]
    public async Task A_rabbitmq_source_script_reshapes_fans_out_deletes_and_skips_and_failures_become_dead_letters_while_the_source_goes_on()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = NewName("src-transform");
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await client.PublishAsync(queue, Messages.Length, i => (
            new BasicProperties { MessageId = $"m{i}", Headers = new Dictionary<string, object?> { ["customer"] = Encoding.UTF8.GetBytes("acme") } },
            Encoding.UTF8.GetBytes(Messages[i])));
        var options = new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue], Script = Script, ScriptTimeoutMs = 200 };
        await using var source = new RabbitMqSource("transformed", options, temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);

        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => temp.Store.Get("plain/9") is not null, Timeout, "the message after the failures stored");
        await source.StopAsync(CancellationToken.None);

        Assert.Equal(0u, await client.ReadyAsync(queue));
        var order2 = Body(temp.Store, "order/2", "orders");
        Assert.Equal(30, order2.GetProperty("total").GetInt32());
        Assert.Equal("acme", order2.GetProperty("customer").GetString());
        Assert.Equal(queue, order2.GetProperty("from").GetString());
        Assert.Equal("m1", order2.GetProperty("messageId").GetString());
        Assert.Equal(JsonValueKind.Null, order2.GetProperty("key").ValueKind);
        Assert.False(order2.TryGetProperty("offset", out _));
        Assert.Null(temp.Store.Get("order/2")!.Position); // a queue's delivery has no log position
        AssertCommonOutcome(temp.Store, queue);
        Assert.Equal("b", Body(temp.Store, "line/3/1", "lines").GetProperty("sku").GetString());
        Assert.Equal(5, temp.Store.GetStats().DocumentCount);
        Assert.Equal(3, source.GetStatus().DeadLetters);
        await client.DeleteAsync(queue);
    }

    [Fact]
    public async Task A_source_script_that_does_not_compile_stops_start_up_naming_the_setting_and_the_source()
    {
        using var testDirectory = new TestDirectory();
        var data = testDirectory.Path;
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(
            data,
            "--Ingest:Sources:RabbitMq:0:Uri=amqp://guest:guest@127.0.0.1:1/",
            "--Ingest:Sources:RabbitMq:0:Queues:0=orders",
            "--Ingest:Sources:RabbitMq:0:Name=orders-in",
            "--Ingest:Sources:RabbitMq:0:Script=function transform(body { return body; }"));

        Assert.Contains("Ingest:Sources:RabbitMq:0:Script of source 'orders-in' does not compile:", error.Message, StringComparison.Ordinal);
    }

    // What both brokers must show after the shared messages: puts, fan-out, a delete, a skip, and dead letters for the rest.
    private static void AssertCommonOutcome(DocumentStore store, string destination)
    {
        Assert.Null(store.Get("order/1"));
        Assert.Equal("a", Body(store, "line/3/0", "lines").GetProperty("sku").GetString());
        Assert.Equal("c", Body(store, "line/3/2", "lines").GetProperty("sku").GetString());
        Assert.Equal("plain", Body(store, "plain/9", destination).GetProperty("kind").GetString());

        // A message whose operations the store refuses is a dead letter as a whole: nothing of it applies.
        Assert.Null(store.Get("half/1"));
        Assert.Null(store.Get("half/2"));

        var reasons = store.GetDeadLetters().Select(static d => (Reason: d.Reason, Body: Encoding.UTF8.GetString(d.Raw.Span))).ToList();
        Assert.Equal(3, reasons.Count);
        Assert.StartsWith("transform failed: ", reasons[0].Reason, StringComparison.Ordinal);
        Assert.Contains("bad message 6", reasons[0].Reason, StringComparison.Ordinal);
        Assert.Equal("transform failed: the script ran longer than its time limit", reasons[1].Reason);
        Assert.StartsWith("Rejected by the store: the transform's output:", reasons[2].Reason, StringComparison.Ordinal);
        Assert.Contains("half-bad", reasons[2].Body, StringComparison.Ordinal);
    }

    private static JsonElement Body(DocumentStore store, string id, string collection)
    {
        var document = store.Get(id);
        Assert.True(document is not null, $"document '{id}' is missing");
        Assert.Equal(collection, document.Collection);
        return JsonDocument.Parse(document.Body).RootElement.Clone();
    }
}
