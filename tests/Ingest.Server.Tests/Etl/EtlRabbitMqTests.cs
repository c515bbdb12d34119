using System.Text;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;
using CloudEvent = CloudNative.CloudEvents.CloudEvent;

namespace Ingest.Server.Tests.Etl;

[Collection(BrokerFixture.Collection)]
public sealed class EtlRabbitMqTests(BrokerFixture brokers) : IDisposable
{
    private readonly TempDocumentStore _store = new();

    private string ErrorLog => _store.Beside("etl-errors.json");
    private readonly string _exchange = $"etl-test-{Guid.NewGuid():N}";

    [Fact]
    public async Task Puts_and_deletes_arrive_as_cloud_events_routed_by_a_document_property()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        await using var connection = await new ConnectionFactory { Uri = rabbit.Uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(_exchange, ExchangeType.Topic, durable: false, autoDelete: true);
        var eu = await BindQueueAsync(channel, "orders.eu");
        var other = await BindQueueAsync(channel, "orders.other");
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, 6, static i => i % 2 == 0 ? $$"""{"N":{{i}},"Route":"orders.eu"}""" : $$"""{"N":{{i}}}"""));
        await store.WriteAsync(new WriteBatch().Delete("orders/2"));
        var deletedAt = store.GetChangesSince(6, 1)[0].LastModified;

        await using var runner = await EtlTestKit.StartAsync(store, RabbitTask(rabbit.Uri), ErrorLog);
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        // The feed holds each document's latest change: orders/2's put was replaced by its delete.
        var toEu = await DrainAsync(channel, eu, 2);
        var toOther = await DrainAsync(channel, other, 4);
        Assert.Equal(["orders/4@4", "orders/6@6"], toEu.Select(static m => m.Event.Id));
        Assert.Equal(["orders/1@1", "orders/3@3", "orders/5@5", "orders/2@7"], toOther.Select(static m => m.Event.Id));
        var put = toEu[0];
        Assert.Equal(DocumentEventTypes.Put, put.Event.Type);
        Assert.Equal("application/json", put.ContentType);
        Assert.Equal("""{"N":4,"Route":"orders.eu"}""", put.Body);
        Assert.Equal("orders/4", put.Event.Subject);
        Assert.Equal("/ingest/test/Orders", put.Event.Source!.OriginalString);
        Assert.Equal("orders/4@4", put.MessageId);
        var deleted = toOther[^1];
        Assert.Equal(DocumentEventTypes.Deleted, deleted.Event.Type);
        Assert.Equal(string.Empty, deleted.Body);
        Assert.Null(deleted.ContentType);
        Assert.Equal(new DateTimeOffset(deletedAt), deleted.Event.Time);
    }

    [Fact]
    public async Task An_unroutable_message_is_reported_and_retried_until_a_queue_takes_it()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        await using var connection = await new ConnectionFactory { Uri = rabbit.Uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(_exchange, ExchangeType.Topic, durable: false, autoDelete: false);
        try
        {
            var store = _store.Store;
            await store.WriteAsync(EtlTestKit.Orders(1, 3));

            await using var runner = await EtlTestKit.StartAsync(store, RabbitTask(rabbit.Uri), ErrorLog);
            using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
            while (runner.GetStatus().State != EtlTaskState.Retrying)
            {
                await Task.Delay(50, timeout.Token);
            }

            Assert.Contains("unroutable", runner.GetStatus().LastError, StringComparison.Ordinal);
            Assert.Equal(0, runner.GetStatus().LastSentEtag);

            // A queue appears: the task recovers by itself and nothing was skipped.
            var queue = await BindQueueAsync(channel, "orders.other");
            await EtlTestKit.WaitCaughtUpAsync(runner, store);
            var received = await DrainAsync(channel, queue, 3);
            Assert.Equal(["orders/1@1", "orders/2@2", "orders/3@3"], received.Select(static m => m.Event.Id).Distinct());
            Assert.Equal(EtlTaskState.Running, runner.GetStatus().State);
        }
        finally
        {
            await channel.ExchangeDeleteAsync(_exchange);
        }
    }

    [Fact]
    public async Task Ten_thousand_changes_arrive_confirmed_each_once_in_etag_order()
    {
        const int count = 10_000;
        var rabbit = await brokers.GetRabbitMqAsync();
        await using var connection = await new ConnectionFactory { Uri = rabbit.Uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(_exchange, ExchangeType.Topic, durable: false, autoDelete: true);
        var queue = await BindQueueAsync(channel, "orders.other");
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, count));

        await using var runner = await EtlTestKit.StartAsync(store, RabbitTask(rabbit.Uri), ErrorLog);
        await EtlTestKit.WaitCaughtUpAsync(runner, store);
        var received = await DrainAsync(channel, queue, count);

        Assert.Equal(Enumerable.Range(1, count).Select(static i => $"orders/{i}@{i}"), received.Select(static m => m.Event.Id));
        Assert.Equal(count, runner.GetStatus().MessagesSent);
    }

    private async Task<string> BindQueueAsync(IChannel channel, string routingKey)
    {
        var queue = (await channel.QueueDeclareAsync($"{_exchange}-{routingKey}", durable: false, exclusive: false, autoDelete: false)).QueueName;
        await channel.QueueBindAsync(queue, _exchange, routingKey);
        return queue;
    }

    private static async Task<List<(CloudEvent Event, string? ContentType, string? MessageId, string Body)>> DrainAsync(IChannel channel, string queue, int count)
    {
        var messages = new List<(CloudEvent, string?, string?, string)>();
        var deadline = DateTime.UtcNow + EtlTestKit.Patience;
        while (messages.Count < count && DateTime.UtcNow < deadline)
        {
            var result = await channel.BasicGetAsync(queue, autoAck: true);
            if (result is null)
            {
                await Task.Delay(50);
                continue;
            }

            var properties = result.BasicProperties;
            var cloudEvent = AmqpCloudEventBinding.Decode(properties.ContentType, properties.Headers!, result.Body);
            messages.Add((cloudEvent, properties.ContentType, properties.MessageId, Encoding.UTF8.GetString(result.Body.Span)));
        }

        await channel.QueueDeleteAsync(queue);
        Assert.True(messages.Count >= count, $"only {messages.Count} of {count} messages arrived on '{queue}'");
        return messages;
    }

    private EtlTaskDefinition RabbitTask(Uri uri) => new()
    {
        Name = "orders-rabbit",
        Collections = ["Orders"],
        RabbitMq = new EtlRabbitMqSettings { Uri = uri.ToString(), Exchange = _exchange, RoutingKey = "orders.other", RoutingKeyPath = "Route" },
        Source = EtlTestKit.Source,
    };

    public void Dispose() => _store.Dispose();
}
