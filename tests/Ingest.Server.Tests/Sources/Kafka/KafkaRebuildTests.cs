using System.Net;
using System.Text.Json;
using Confluent.Kafka;
using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// A node whose data directory is deleted rebuilds from the log: the store's (absent) positions win over the
/// group's committed offsets, and records the topic's retention removed are reported (docs/cluster.md, "Rebuilding a node").
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaRebuildTests(BrokerFixture brokers)
{
    private const int Records = 10;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task A_deleted_data_directory_is_rebuilt_from_the_start_of_the_topic_though_the_group_has_committed_offsets()
    {
        var (kafka, topic, group, directory) = await ConsumeOnceAndDeleteTheDataAsync("rebuild");
        using (directory)
        {
            await using var server = await RunningServer.StartAsync(directory.Path, KafkaGroupSplitTests.SourceArguments(kafka, topic, group));
            var store = server.Services.GetRequiredService<DocumentStore>();
            await WaitUntilAsync(() => store.GetStats().DocumentCount == Records, Patience, "every record stored again");
            for (var i = 0; i < Records; i++)
            {
                Assert.NotNull(store.Get($"r-{i}"));
            }

            var stats = await StatsAsync(server);
            Assert.Equal(0, stats.Sources[0].LostToRetention);
            var (status, health) = await KafkaGroupSplitTests.HealthAsync(server);
            Assert.Equal(HttpStatusCode.OK, status);
            Assert.Null(health.Sources[0].Warning);
        }
    }

    [Fact]
    public async Task A_rebuild_past_the_topics_retention_says_how_many_records_it_lost_without_failing_health()
    {
        var (kafka, topic, group, directory) = await ConsumeOnceAndDeleteTheDataAsync("rebuild-lost");
        using (directory)
        {
            // Retention removes the first four records after the store that held them is gone.
            using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka }).Build())
            {
                await admin.DeleteRecordsAsync([new TopicPartitionOffset(topic, 0, 4)]);
            }

            await using var server = await RunningServer.StartAsync(directory.Path, KafkaGroupSplitTests.SourceArguments(kafka, topic, group));
            var store = server.Services.GetRequiredService<DocumentStore>();
            await WaitUntilAsync(() => store.Get($"r-{Records - 1}") is not null, Patience, "the last record stored again");
            await WaitUntilAsync(async () => (await StatsAsync(server)).Sources[0].LostToRetention > 0, Patience, "the loss reported");
            Assert.Equal(Records - 4, store.GetStats().DocumentCount);
            Assert.Null(store.Get("r-3"));

            var source = (await StatsAsync(server)).Sources[0];
            Assert.Equal(4, source.LostToRetention);
            Assert.Equal(new RetentionLossEntry(topic, 0, 4, 4), Assert.Single(source.RetentionLosses!));
            var (status, health) = await KafkaGroupSplitTests.HealthAsync(server);
            Assert.Equal(HttpStatusCode.OK, status);
            Assert.Contains("4 records", health.Sources[0].Warning, StringComparison.Ordinal);
            Assert.Contains($"{topic}[0] starts at 4", health.Sources[0].Warning, StringComparison.Ordinal);
        }
    }

    // A server reads the topic and commits the group's offsets to its end, stops, and its data directory is deleted.
    private async Task<(string Kafka, string Topic, string Group, TestDirectory Directory)> ConsumeOnceAndDeleteTheDataAsync(string prefix)
    {
        var kafka = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = NewName(prefix);
        var group = NewName("group");
        await CreateTopicAsync(kafka, topic, 1);
        await ProduceAsync(kafka, topic, [.. Enumerable.Range(0, Records).Select(static i => Record($"r-{i}", """{"n":1}"""))]);
        var directory = new TestDirectory();
        await using (var server = await RunningServer.StartAsync(directory.Path, KafkaGroupSplitTests.SourceArguments(kafka, topic, group)))
        {
            var store = server.Services.GetRequiredService<DocumentStore>();
            await WaitUntilAsync(() => store.GetStats().DocumentCount == Records, Patience, "every record stored");
        }

        Assert.Equal(Records, (await CommittedAsync(kafka, group, topic, 1))[0]);
        Directory.Delete(directory.Path, recursive: true);
        return (kafka, topic, group, directory);
    }

    private static async Task<StatsResponse> StatsAsync(RunningServer server)
    {
        var body = await server.Client.GetStringAsync(new Uri("/stats", UriKind.Relative));
        return JsonSerializer.Deserialize(body, IngestHttpJsonContext.Default.StatsResponse)!;
    }
}
