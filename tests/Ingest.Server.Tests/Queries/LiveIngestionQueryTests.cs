using Ingest.Documents;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Queries.QueryTestKit;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>
/// <c>waitForNonStale</c> while orders stream in from a real Kafka broker: every answer counts at least the orders
/// stored when the query started, and says the index is not stale; the first query makes the automatic index mid-stream.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class LiveIngestionQueryTests(BrokerFixture brokers) : IDisposable
{
    private const int Rounds = 40;
    private const int PerRound = 250;
    private readonly TestDirectory _dataDirectory = new();

    public void Dispose() => _dataDirectory.Dispose();

    [Fact]
    public async Task Wait_for_non_stale_answers_include_every_order_stored_before_the_query_during_kafka_ingestion()
    {
        var kafka = await brokers.GetKafkaAsync();
        var (server, topic) = await StartOrdersServerAsync(kafka.BootstrapServers, _dataDirectory.Path, "live-query");
        await using var running = server;
        var store = server.Services.GetRequiredService<DocumentStore>();

        var producing = Task.Run(async () =>
        {
            for (var round = 0; round < Rounds; round++)
            {
                await ProduceAsync(kafka.BootstrapServers, topic, [.. Enumerable.Range(round * PerRound, PerRound).Select(i => Record($"orders/{i}", Order(i)))]);
                await Task.Delay(25);
            }
        });

        var answers = 0;
        while (!producing.IsCompleted || answers == 0)
        {
            var storedBefore = StoredOrders(store);
            var answer = await QueryAsync(server.Client, "from Orders where Total >= 0 limit 0", wait: "60s");

            Assert.False(answer.GetProperty("isStale").GetBoolean(), answer.ToString());
            if (answer.TryGetProperty("warnings", out var warnings))
            {
                // Asked before the first order arrived: a collection with no documents makes no index yet.
                Assert.Equal(0, storedBefore);
                Assert.StartsWith("unknown collection 'Orders'", warnings[0].GetString(), StringComparison.Ordinal);
                continue;
            }

            Assert.Equal("Auto/Orders/ByTotal", answer.GetProperty("indexName").GetString());
            Assert.True(answer.GetProperty("totalResults").GetInt64() >= storedBefore, $"{storedBefore} orders stored before the query, the answer counts {answer.GetProperty("totalResults")}");
            answers++;
        }

        await producing;
        await WaitUntilAsync(() => StoredOrders(store) == Rounds * PerRound, TimeSpan.FromSeconds(90), "every order stored");
        var last = await QueryAsync(server.Client, "from Orders where Total >= 0 limit 0", wait: "60s");
        Assert.Equal(Rounds * PerRound, last.GetProperty("totalResults").GetInt64());
        Assert.True(answers > 1, $"only {answers} answer(s) during ingestion");
    }

    private static long StoredOrders(DocumentStore store)
    {
        using var reader = store.BeginRead();
        return reader.GetStats().Collections.FirstOrDefault(c => c.Name == "Orders")?.Count ?? 0;
    }
}
