using System.Net;
using System.Text.Json;
using Confluent.Kafka;
using Ingest.Contracts.Http;
using Ingest.Server.Sources;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// No silent split: a Kafka source whose consumer group has members other than itself says so in /health
/// (503, naming them) unless it shares the group on purpose (docs/cluster.md, "No silent split").
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaGroupSplitTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task Two_servers_with_default_settings_on_one_group_are_both_unhealthy_naming_each_other_until_one_leaves()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("split");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        var arguments = SourceArguments(kafka.BootstrapServers, topic, NewName("group"));
        using var firstDirectory = new TestDirectory();
        using var secondDirectory = new TestDirectory();
        await using var first = await RunningServer.StartAsync(firstDirectory.Path, arguments);

        // Alone in its group: healthy, once it has joined it.
        await WaitUntilAsync(() => Group(first).MemberId is not null, Patience, "the first server in its group");
        var (alone, _) = await HealthAsync(first);
        Assert.Equal(HttpStatusCode.OK, alone);

        await using (var second = await RunningServer.StartAsync(secondDirectory.Path, arguments))
        {
            await WaitUntilAsync(
                async () => (await HealthAsync(first)).Status == HttpStatusCode.ServiceUnavailable
                    && (await HealthAsync(second)).Status == HttpStatusCode.ServiceUnavailable,
                Patience, "both servers unhealthy");
            foreach (var (server, other) in new[] { (first, second), (second, first) })
            {
                var (_, health) = await HealthAsync(server);
                var source = Assert.Single(health.Sources);
                var member = Assert.Single(source.OtherMembers!);
                var otherStatus = Group(other);
                Assert.Equal(otherStatus.MemberId, member.MemberId);
                Assert.Equal(otherStatus.ClientId, member.ClientId);
                Assert.Equal($"ingest-{Environment.MachineName}-{Environment.ProcessId}/orders", member.ClientId);
                Assert.Contains(member.ClientId, source.Error, StringComparison.Ordinal);
                Assert.Contains(member.MemberId, source.Error, StringComparison.Ordinal);
                Assert.Contains(member.Host, source.Error, StringComparison.Ordinal);
                Assert.Contains("SharedGroup", source.Error, StringComparison.Ordinal);
                Assert.True(source.Connected);
            }
        }

        // The other left the group: the split clears.
        await WaitUntilAsync(async () => (await HealthAsync(first)).Status == HttpStatusCode.OK, Patience, "the first server healthy again");
        Assert.Empty(Group(first).OtherMembers);
    }

    [Fact]
    public async Task Two_servers_that_share_their_group_on_purpose_stay_healthy()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("shared");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        string[] arguments = [.. SourceArguments(kafka.BootstrapServers, topic, NewName("group")), "--Ingest:Sources:Kafka:0:SharedGroup=true"];
        using var firstDirectory = new TestDirectory();
        using var secondDirectory = new TestDirectory();
        await using var first = await RunningServer.StartAsync(firstDirectory.Path, arguments);
        await using var second = await RunningServer.StartAsync(secondDirectory.Path, arguments);

        // Each has seen the other (the check ran), and neither calls it a split.
        await WaitUntilAsync(() => Group(first).OtherMembers.Count == 1 && Group(second).OtherMembers.Count == 1, Patience, "each server seeing the other");
        foreach (var server in new[] { first, second })
        {
            var (status, health) = await HealthAsync(server);
            Assert.Equal(HttpStatusCode.OK, status);
            Assert.Single(health.Sources[0].OtherMembers!);
            Assert.Null(Group(server).Split);
        }
    }

    [Fact]
    public async Task A_plain_consumer_in_the_source_group_makes_the_server_unhealthy_naming_its_client_id()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("split-plain");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 2);
        var group = NewName("group");
        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(directory.Path, SourceArguments(kafka.BootstrapServers, topic, group));
        await WaitUntilAsync(() => Group(server).MemberId is not null, Patience, "the server in its group");

        var stop = new CancellationTokenSource();
        var clientId = NewName("lag-tool");
        var consuming = Task.Factory.StartNew(
            () =>
            {
                using var consumer = new ConsumerBuilder<Ignore, Ignore>(new ConsumerConfig
                {
                    BootstrapServers = kafka.BootstrapServers,
                    GroupId = group,
                    ClientId = clientId,
                    SessionTimeoutMs = 6000,
                    HeartbeatIntervalMs = 1000,
                }).Build();
                consumer.Subscribe(topic);
                while (!stop.IsCancellationRequested)
                {
                    consumer.Consume(TimeSpan.FromMilliseconds(100));
                }

                consumer.Close();
            },
            TaskCreationOptions.LongRunning);
        try
        {
            await WaitUntilAsync(async () => (await HealthAsync(server)).Status == HttpStatusCode.ServiceUnavailable, Patience, "the server unhealthy");
            var (_, health) = await HealthAsync(server);
            var member = Assert.Single(health.Sources[0].OtherMembers!);
            Assert.Equal(clientId, member.ClientId);
            Assert.Contains(clientId, health.Sources[0].Error, StringComparison.Ordinal);
        }
        finally
        {
            await stop.CancelAsync();
            await consuming;
            stop.Dispose();
        }

        await WaitUntilAsync(async () => (await HealthAsync(server)).Status == HttpStatusCode.OK, Patience, "the server healthy once the consumer left");
    }

    internal static string[] SourceArguments(string bootstrap, string topic, string group) =>
    [
        $"--Ingest:Sources:Kafka:0:BootstrapServers={bootstrap}",
        $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
        $"--Ingest:Sources:Kafka:0:GroupId={group}",
        "--Ingest:Sources:Kafka:0:Name=orders",
        "--Ingest:Sources:Kafka:0:Settings:session.timeout.ms=6000",
        "--Ingest:Sources:Kafka:0:Settings:heartbeat.interval.ms=1000",
    ];

    internal static SourceGroupStatus Group(RunningServer server) =>
        server.Services.GetRequiredService<IngestionService>().Find("orders")!.GetStatus().Group!;

    internal static async Task<(HttpStatusCode Status, HealthResponse Health)> HealthAsync(RunningServer server)
    {
        using var response = await server.Client.GetAsync(new Uri("/health", UriKind.Relative));
        var body = await response.Content.ReadAsStringAsync();
        return (response.StatusCode, JsonSerializer.Deserialize(body, IngestHttpJsonContext.Default.HealthResponse)!);
    }
}
