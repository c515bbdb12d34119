using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Tests.Etl;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Cluster;

/// <summary>Kafka-ingested documents and deletes record their message's position; ETL names each change by it; the digest reports the positions.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class LogPositionIngestionTests(BrokerFixture brokers)
{
    private const int Orders = 30;

    [Fact]
    public async Task Kafka_ingested_changes_carry_their_message_positions_and_etl_ids_name_them()
    {
        var kafka = await brokers.GetKafkaAsync();
        var bootstrap = kafka.BootstrapServers;
        var topic = NewName("positions");
        await CreateTopicAsync(bootstrap, topic, 3);
        var puts = await ProduceAsync(bootstrap, topic, [.. Enumerable.Range(1, Orders).Select(static i => Record($"orders/{i}", $$"""{"N":{{i}}}"""))]);
        var delete = (await ProduceAsync(bootstrap, topic, [Record("orders/4", null)]))[0];

        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(
            directory.Combine("data"),
            $"--Ingest:Sources:Kafka:0:BootstrapServers={bootstrap}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            "--Ingest:Sources:Kafka:0:Collection=Orders",
            "--Ingest:Sources:Kafka:0:Name=orders");
        var store = server.Services.GetRequiredService<DocumentStore>();
        await WaitUntilAsync(() => StoredTotal(store, $"orders/{topic}") == Orders + 1, TimeSpan.FromSeconds(60), "every message applied");

        for (var i = 1; i <= Orders; i++)
        {
            var landed = puts[i - 1];
            var document = store.Get($"orders/{i}");
            if (i == 4)
            {
                Assert.Null(document);
                continue;
            }

            Assert.Equal(new LogPosition(topic, landed.Partition.Value, landed.Offset.Value), document!.Position);
        }

        var tombstone = store.GetChangesSince(0, 100).Single(static c => c.IsDeleted);
        Assert.Equal(new LogPosition(topic, delete.Partition.Value, delete.Offset.Value), tombstone.Position);

        // ETL names each change by the message that made it: whichever node sends it, the same id.
        var outTopic = NewName("positions-out");
        await CreateTopicAsync(bootstrap, outTopic, 3);
        await using (var runner = await EtlTestKit.StartAsync(store, EtlTestKit.KafkaTask("positions-out", bootstrap, outTopic), directory.Combine("etl-errors.json")))
        {
            var records = EtlTestKit.ConsumeKafka(bootstrap, outTopic, Orders);
            await EtlTestKit.WaitCaughtUpAsync(runner, store);
            var expected = puts.Select((landed, n) => (Id: $"orders/{n + 1}", Landed: landed)).Where(static p => p.Id != "orders/4").Append(("orders/4", delete))
                .Select(p => $"{p.Item1}@{topic}-{p.Item2.Partition.Value}-{p.Item2.Offset.Value}")
                .Order(StringComparer.Ordinal);
            Assert.Equal(expected, records.Select(static r => r.Event.Id!).Order(StringComparer.Ordinal));
        }

        // The digest reports the positions applied, per topic partition, and the documents left.
        using var response = await server.Client.GetAsync(new Uri("/cluster/digest?collection=orders", UriKind.Relative));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var json = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(Orders - 1, json.RootElement.GetProperty("documents").GetInt64());
        var ends = EndOffsets(bootstrap, topic, 3);
        var positions = json.RootElement.GetProperty("positions").EnumerateObject().ToDictionary(static p => p.Name, static p => p.Value.GetInt64());
        Assert.Equal(ends.Where(static e => e.Value > 0).ToDictionary(e => $"{topic}-{e.Key}", static e => e.Value), positions);
    }
}
