using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Expiration;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Indexes;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Indexes.IndexTestKit;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Expiration;

/// <summary>
/// Expiration while a Kafka source ingests, with an index and a Kafka ETL task following the store: documents whose
/// @expires has passed never show in queries, the task deletes them (and only them), the index drops their entries and
/// the ETL task sends their deletes after their puts.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class LiveExpirationTests(BrokerFixture brokers) : IDisposable
{
    private const int Documents = 2_000;
    private const int Customers = 10;
    private const string IndexName = "Orders/ByCustomer";
    private readonly TestDirectory _dataDirectory = new();

    public void Dispose() => _dataDirectory.Dispose();

    /// <summary>Every fourth document arrives already expired, every fourth from 1 on expires a few seconds after it is produced; the rest never.</summary>
    private static string Order(int i, DateTime produced)
    {
        var expires = (i % 4) switch
        {
            0 => ",\"@metadata\":{\"@expires\":\"2020-01-01T00:00:00Z\"}",
            1 => $",\"@metadata\":{{\"@expires\":\"{produced.AddSeconds(3):yyyy-MM-ddTHH:mm:ss.fffZ}\"}}",
            _ => string.Empty,
        };
        return $$"""{"customer":"CUSTOMER-{{i % Customers}}","total":{{i}}{{expires}}}""";
    }

    private static bool Expires(int i) => i % 4 is 0 or 1;

    private static string Id(int i) => $"orders/{i}";

    [Fact]
    public async Task Expired_documents_leave_queries_at_once_and_the_task_deletes_only_them_through_the_index_and_etl()
    {
        var kafka = await brokers.GetKafkaAsync();
        var input = NewName("expire-in");
        var output = NewName("expire-out");
        await CreateTopicAsync(kafka.BootstrapServers, input, 3);
        await CreateTopicAsync(kafka.BootstrapServers, output, 3);
        await using var server = await RunningServer.StartAsync(
            _dataDirectory.Path,
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={input}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            "--Ingest:Sources:Kafka:0:Collection=Orders",
            "--Ingest:Etl:0:Name=orders-out", "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}", $"--Ingest:Etl:0:Kafka:Topic={output}",
            "--Ingest:Expiration:Interval=00:00:00.200",
            "--Ingest:Expiration:BatchSize=97");
        var store = server.Services.GetRequiredService<DocumentStore>();
        var progress = server.Services.GetRequiredService<ExpirationProgress>();
        using (var put = await server.Client.PutAsync(new Uri("/indexes/" + IndexName, UriKind.Relative), ApiTestServer.Json(OrdersByCustomer)))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        using (var other = await server.Client.PutAsync(new Uri("/docs/users/1?collection=Users", UriKind.Relative), ApiTestServer.Json("{\"name\":\"kept\"}")))
        {
            Assert.Equal(HttpStatusCode.Created, other.StatusCode);
        }

        // Produced while the task runs every 200 ms in batches of 97: ingestion and expiration interleave.
        var produced = DateTime.UtcNow;
        await ProduceAsync(kafka.BootstrapServers, input, [.. Enumerable.Range(0, Documents).Select(i => Record(Id(i), Order(i, produced)))]);

        // While ingestion goes on, no query ever returns a document that has expired.
        var survivors = Enumerable.Range(0, Documents).Where(i => !Expires(i)).ToHashSet();
        var expiring = Documents - survivors.Count;
        await WaitUntilAsync(
            async () =>
            {
                // The clock is read before asking: a document read before its expiry may arrive after it.
                var asked = DateTime.UtcNow;
                var answer = await QueryAsync(server.Client, "from Orders where customer = 'customer-3'");
                foreach (var row in answer.GetProperty("results").EnumerateArray())
                {
                    var total = row.GetProperty("document").GetProperty("total").GetInt32();
                    Assert.True(
                        !Expires(total) || (total % 4 == 1 && asked < produced.AddSeconds(3)),
                        $"orders/{total} was returned after its expiry");
                }

                return progress.Documents == expiring;
            },
            IndexTestKit.Timeout,
            $"the task deleted the {expiring} expiring orders");

        // Only they were deleted: the survivors and the other collection are untouched.
        var stats = store.GetStats();
        Assert.Equal(survivors.Count, stats.Collections.Single(c => c.Name == "Orders").Count);
        Assert.Equal(1, stats.Collections.Single(c => c.Name == "Users").Count);
        Assert.All(survivors, i => Assert.Equal(Order(i, produced), Encoding.UTF8.GetString(store.Get(Id(i))!.Body.Span)));
        Assert.All(Enumerable.Range(0, Documents).Where(Expires), i => Assert.Null(store.Get(Id(i))));
        Assert.NotNull(store.Get("users/1"));

        // The index holds the survivors only.
        var index = await WaitUntilCaughtUpAsync(server.Client, IndexName, store.LastEtag);
        Assert.Equal(survivors.Count, index.GetProperty("entries").GetInt64());
        for (var c = 0; c < Customers; c++)
        {
            Assert.Equal(survivors.Count(i => i % Customers == c), LookupCount(Manager(server.Services), IndexName, 0, Encoding.UTF8.GetBytes($"customer-{c}")));
        }

        // The ETL task sent a put for every survivor and a delete for every expired order, as the last event of its
        // key (an order the task deleted before the ETL task read its put is sent as the delete alone, like any delete).
        var events = ConsumeUntil(kafka.BootstrapServers, output, survivors.Count + expiring);
        Assert.Equal(
            Enumerable.Range(0, Documents).Where(Expires).Select(Id).Order(StringComparer.Ordinal),
            events.Where(e => e.Value[^1] == DocumentEventTypes.Deleted).Select(e => e.Key).Order(StringComparer.Ordinal));
        Assert.All(survivors, i => Assert.Equal([DocumentEventTypes.Put], events[Id(i)]));
        Assert.All(events.Values, types => Assert.True(types.Count(t => t == DocumentEventTypes.Deleted) <= 1, string.Join(", ", types)));
    }

    /// <summary>Each key's event types in arrival order (one key stays on one partition), once <paramref name="keys"/> keys have a last event that settles them.</summary>
    private static Dictionary<string, List<string>> ConsumeUntil(string bootstrap, string topic, int keys)
    {
        var config = new Confluent.Kafka.ConsumerConfig { BootstrapServers = bootstrap, GroupId = NewName("expire-check"), AutoOffsetReset = Confluent.Kafka.AutoOffsetReset.Earliest, EnableAutoCommit = false };
        using var consumer = new Confluent.Kafka.ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        consumer.Subscribe(topic);
        var events = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        var deadline = DateTime.UtcNow + IndexTestKit.Timeout;
        while (DateTime.UtcNow < deadline && !(events.Count == keys && events.All(e => Settled(e.Key, e.Value))))
        {
            var result = consumer.Consume(TimeSpan.FromMilliseconds(500));
            if (result?.Message is { } message)
            {
                var headers = message.Headers.Select(static h => new KeyValuePair<string, byte[]?>(h.Key, h.GetValueBytes()));
                var key = Encoding.UTF8.GetString(message.Key);
                var type = KafkaCloudEventBinding.Decode(headers, message.Value).Type!;
                (events.TryGetValue(key, out var list) ? list : events[key] = []).Add(type);
            }
        }

        consumer.Close();
        return events;
    }

    private static bool Settled(string id, List<string> types) =>
        types[^1] == (Expires(int.Parse(id.AsSpan("orders/".Length), System.Globalization.CultureInfo.InvariantCulture)) ? DocumentEventTypes.Deleted : DocumentEventTypes.Put);

    private static async Task<JsonElement> QueryAsync(HttpClient client, string query)
    {
        using var response = await client.GetAsync(new Uri("/queries?q=" + Uri.EscapeDataString(query), UriKind.Relative));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement.Clone();
    }
}
