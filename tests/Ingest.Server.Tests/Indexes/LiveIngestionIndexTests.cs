using System.Net;
using System.Text;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources.RabbitMq;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;
using static Ingest.Server.Tests.Indexes.IndexTestKit;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Indexes;

/// <summary>
/// An index defined over HTTP stays up to date while documents arrive from a real broker: a first round of puts, then
/// a round that moves half of them to another customer (and, on Kafka, deletes some with tombstones); after each
/// round the index catches up and its term lookups count what the documents say.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class LiveIngestionIndexTests(BrokerFixture brokers) : IDisposable
{
    private const int Documents = 2_000;
    private const int Customers = 10;
    private const string IndexName = "Orders/ByCustomer";
    private readonly TestDirectory _dataDirectory = new();

    public void Dispose() => _dataDirectory.Dispose();

    [Fact]
    public async Task An_index_defined_over_http_stays_up_to_date_under_kafka_ingestion()
    {
        var kafka = await brokers.GetKafkaAsync();
        var (server, topic) = await StartOrdersServerAsync(kafka.BootstrapServers, _dataDirectory.Path, "live-index");
        await using var running = server;
        await DefineIndexAsync(server);

        await ProduceAsync(kafka.BootstrapServers, topic, [.. Enumerable.Range(0, Documents).Select(i => Record(Id(i), Order(i, Customer(i))))]);
        await AssertIndexedAsync(server, Documents, i => Customer(i));

        // Round two: the first half moves to one customer; every tenth of the second half is deleted (a tombstone).
        var moved = Enumerable.Range(0, Documents / 2).Select(i => Record(Id(i), Order(i, "moved")));
        var deleted = Enumerable.Range(Documents / 2, Documents / 2).Where(i => i % 10 == 0).Select(i => Record(Id(i), null));
        await ProduceAsync(kafka.BootstrapServers, topic, [.. moved, .. deleted]);
        var expected = Documents - (Documents / 20);
        await AssertIndexedAsync(server, expected, i => i < Documents / 2 ? "moved" : i % 10 == 0 ? null : Customer(i));
    }

    [Fact]
    public async Task An_index_defined_over_http_stays_up_to_date_under_rabbitmq_ingestion()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = NewName("live-index");
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await using (var server = await RunningServer.StartAsync(
            _dataDirectory.Path,
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            "--Ingest:Sources:RabbitMq:0:Collection=Orders"))
        {
            await DefineIndexAsync(server);

            await client.PublishAsync(queue, Documents, i => (new BasicProperties { MessageId = Id(i) }, Encoding.UTF8.GetBytes(Order(i, Customer(i)))));
            await AssertIndexedAsync(server, Documents, i => Customer(i));

            // Round two: the first half moves to one customer; every tenth of the second half is deleted (ingest-op: delete).
            await client.PublishAsync(queue, Documents / 2, i => (new BasicProperties { MessageId = Id(i) }, Encoding.UTF8.GetBytes(Order(i, "moved"))));
            var deletes = Enumerable.Range(Documents / 2, Documents / 2).Where(i => i % 10 == 0).ToArray();
            await client.PublishAsync(queue, deletes.Length, k => (
                new BasicProperties { MessageId = Id(deletes[k]), Headers = new Dictionary<string, object?> { ["ingest-op"] = "delete"u8.ToArray() } },
                []));
            await AssertIndexedAsync(server, Documents - deletes.Length, i => i < Documents / 2 ? "moved" : i % 10 == 0 ? null : Customer(i));
        }

        await client.DeleteAsync(queue);
    }

    private static async Task DefineIndexAsync(RunningServer server)
    {
        using var put = await server.Client.PutAsync(new Uri("/indexes/" + IndexName, UriKind.Relative), ApiTestServer.Json(OrdersByCustomer));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
    }

    /// <summary>Waits for the documents to land and the index to catch up, then checks each customer's lookup count.</summary>
    private static async Task AssertIndexedAsync(RunningServer server, int expectedDocuments, Func<int, string?> customerOf)
    {
        var store = server.Services.GetRequiredService<DocumentStore>();
        await WaitUntilAsync(
            () => store.GetStats().Collections.FirstOrDefault(c => c.Name == "Orders")?.Count == expectedDocuments
                && Enumerable.Range(0, Documents).All(i => customerOf(i) is not { } customer || store.Get(Id(i)) is { IsDeleted: false } d && Encoding.UTF8.GetString(d.Body.Span).Contains(customer.ToUpperInvariant(), StringComparison.Ordinal)),
            IndexTestKit.Timeout,
            $"{expectedDocuments} orders with their expected customers stored");
        var ordersLastEtag = store.GetStats().Collections.Single(c => c.Name == "Orders").LastEtag;

        var index = await WaitUntilCaughtUpAsync(server.Client, IndexName, ordersLastEtag);

        Assert.Equal(expectedDocuments, index.GetProperty("entries").GetInt64());
        var manager = Manager(server.Services);
        var expected = Enumerable.Range(0, Documents).Select(customerOf).Where(c => c is not null).GroupBy(c => c!).ToDictionary(g => g.Key, g => g.Count());
        foreach (var customer in expected.Keys.Concat(Enumerable.Range(0, Customers).Select(c => Customer(c))).Distinct())
        {
            Assert.Equal(expected.GetValueOrDefault(customer), LookupCount(manager, IndexName, 0, Encoding.UTF8.GetBytes(customer)));
        }
    }

    private static string Id(int i) => $"orders/{i}";

    private static string Customer(int i) => $"customer-{i % Customers}";

    private static string Order(int i, string customer) => $$"""{"customer":"{{customer.ToUpperInvariant()}}","total":{{i}}}""";
}
