using System.Text.Json;
using Confluent.Kafka;
using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Cluster;

/// <summary><c>GET /cluster</c>, and the per-node groups it finds nodes by.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class ClusterEndpointsTests(BrokerFixture brokers)
{
    private const int Records = 30;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task Nodes_in_cluster_mode_each_read_every_partition_in_their_own_group_and_list_each_other_with_their_positions()
    {
        var kafka = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = NewName("cluster-map");
        var group = NewName("group");
        await CreateTopicAsync(kafka, topic, 3);
        await ProduceAsync(kafka, topic, [.. Enumerable.Range(0, Records).Select(static i => Record($"c-{i}", """{"n":1}"""))]);
        var first = NewName("n1");
        var second = NewName("n2");
        using var firstDirectory = new TestDirectory();
        using var secondDirectory = new TestDirectory();
        await using var one = await RunningServer.StartAsync(firstDirectory.Path, NodeArguments(kafka, topic, group, first));
        var two = await RunningServer.StartAsync(secondDirectory.Path, NodeArguments(kafka, topic, group, second));
        var twoRunning = true;
        try
        {
            // Each replica reads every partition: every record on both, no split.
            foreach (var server in new[] { one, two })
            {
                var store = server.Services.GetRequiredService<DocumentStore>();
                await WaitUntilAsync(() => store.GetStats().DocumentCount == Records, Patience, "every record on every node");
            }

            Assert.Equal($"{group}.{first}", KafkaGroupSplitTests.Group(one).GroupId);
            Assert.Equal($"ingest-{first}/orders", KafkaGroupSplitTests.Group(one).ClientId);
            Assert.Equal(System.Net.HttpStatusCode.OK, (await KafkaGroupSplitTests.HealthAsync(two)).Status);

            // The group's committed offsets trail the store by up to a second: poll until both nodes show no lag.
            ClusterResponse? map = null;
            await WaitUntilAsync(
                async () =>
                {
                    map = await ClusterAsync(one);
                    return map.Nodes.Where(n => n.Node == first || n.Node == second)
                    .Count(static n => n.Groups.Any(static g => g.Partitions.Count == 3 && g.Partitions.All(static p => p.Lag == 0))) == 2;
                },
                Patience, "both nodes in /cluster, caught up");
            Assert.Equal("cluster", map!.Mode);
            Assert.Equal(first, map.Node);
            Assert.Equal($"ingest-{first}", map.ClientId);
            Assert.Equal(first, map.Nodes[0].Node);
            Assert.True(map.Nodes[0].Self);
            var other = Assert.Single(map.Nodes, n => n.Node == second);
            Assert.False(other.Self);
            Assert.True(other.Alive);
            var otherGroup = Assert.Single(other.Groups, static g => g.Kind == "source");
            Assert.Contains(other.Groups, static g => g.Kind != "source"); // the cluster topic's applier
            Assert.Equal($"{group}.{second}", otherGroup.Group);
            Assert.Equal("source", otherGroup.Kind);
            Assert.Equal("orders", otherGroup.Source);
            Assert.Equal([$"ingest-{second}/orders"], otherGroup.Members);
            Assert.Equal(Records, otherGroup.Partitions.Sum(static p => p.CommittedOffset));

            // Once the other node is gone, it is still known (its group and offsets remain) but not alive.
            twoRunning = false;
            await two.DisposeAsync();
            await WaitUntilAsync(
                async () => (await ClusterAsync(one)).Nodes.Single(n => n.Node == second) is { Alive: false },
                Patience, "the stopped node not alive");
        }
        finally
        {
            if (twoRunning)
            {
                await two.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task The_owner_of_a_task_is_the_member_of_its_owner_group_assigned_the_lease_partition()
    {
        var kafka = (await brokers.GetKafkaAsync()).BootstrapServers;
        var leases = NewName("leases");
        await CreateTopicAsync(kafka, leases, 1);
        var node = NewName("n1");
        var owner = NewName("n2");
        var task = $"etl.{NewName("audit")}";
        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(
            directory.Path, $"--Ingest:Cluster:Node={node}", $"--Ingest:Cluster:BootstrapServers={kafka}", $"--Ingest:Cluster:LeaseTopic={leases}");

        // Another node's election, as Kafka's group protocol runs it: one member, assigned the lease partition.
        using var stop = new CancellationTokenSource();
        var assigned = new TaskCompletionSource();
        var electing = Task.Factory.StartNew(
            () =>
            {
                using var consumer = new ConsumerBuilder<Ignore, Ignore>(new ConsumerConfig
                {
                    BootstrapServers = kafka,
                    GroupId = $"ingest-owner.{task}",
                    ClientId = $"ingest-{owner}",
                }).SetPartitionsAssignedHandler((_, partitions) => { if (partitions.Count > 0) { assigned.TrySetResult(); } }).Build();
                consumer.Subscribe(leases);
                while (!stop.IsCancellationRequested)
                {
                    consumer.Consume(TimeSpan.FromMilliseconds(100));
                }

                consumer.Close();
            },
            TaskCreationOptions.LongRunning);
        try
        {
            await assigned.Task.WaitAsync(Patience);
            ClusterOwnerEntry? found = null;
            await WaitUntilAsync(
                async () => (found = (await ClusterAsync(server)).Owners.FirstOrDefault(o => o.Task == task)) is { Node: not null },
                Patience, "the task's owner in /cluster");
            Assert.Equal(owner, found!.Node);
            Assert.Equal($"ingest-{owner}", found.ClientId);
            Assert.Equal($"ingest-owner.{task}", found.Group);
            var map = await ClusterAsync(server);
            Assert.Equal(node, map.Nodes[0].Node);
            Assert.True(Assert.Single(map.Nodes, n => n.Node == owner).Alive);
        }
        finally
        {
            await stop.CancelAsync();
            await electing;
        }
    }

    [Fact]
    public async Task On_one_node_cluster_describes_this_node_and_its_sources()
    {
        var kafka = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = NewName("single-map");
        var group = NewName("group");
        await CreateTopicAsync(kafka, topic, 2);
        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(directory.Path, KafkaGroupSplitTests.SourceArguments(kafka, topic, group));
        await WaitUntilAsync(() => KafkaGroupSplitTests.Group(server).MemberId is not null, Patience, "the source in its group");

        var map = await ClusterAsync(server);
        Assert.Equal("single", map.Mode);
        Assert.Null(map.Node);
        var expected = $"ingest-{Environment.MachineName}-{Environment.ProcessId}";
        Assert.Equal(expected, map.ClientId);
        var self = Assert.Single(map.Nodes);
        Assert.True(self.Self);
        var source = Assert.Single(self.Groups);
        Assert.Equal(group, source.Group);
        Assert.Equal([$"{expected}/orders"], source.Members);
        Assert.Empty(map.Owners);
    }

    private static string[] NodeArguments(string kafka, string topic, string group, string node) =>
    [
        .. KafkaGroupSplitTests.SourceArguments(kafka, topic, group),
        $"--Ingest:Cluster:Node={node}",
        $"--Ingest:Cluster:BootstrapServers={kafka}",
    ];

    private static async Task<ClusterResponse> ClusterAsync(RunningServer server)
    {
        var body = await server.Client.GetStringAsync(new Uri("/cluster", UriKind.Relative));
        return JsonSerializer.Deserialize(body, IngestHttpJsonContext.Default.ClusterResponse)!;
    }
}
