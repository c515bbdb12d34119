using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Etl;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Cluster;

/// <summary>Two in-process nodes of one cluster on the real broker, each a full replica holding the same documents (with the same log positions).</summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlFailoverTests(BrokerFixture brokers) : IDisposable
{
    private const string Task = "orders-out";
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(120);
    private readonly TestDirectory _directory = new();

    [Fact]
    public async Task One_node_sends_and_the_other_takes_over_from_the_recorded_progress_when_it_stops()
    {
        var kafka = await brokers.GetKafkaAsync();
        var bootstrap = kafka.BootstrapServers;
        var clusterTopic = KafkaTestKit.NewName("cluster");
        var destination = KafkaTestKit.NewName("etl-out");
        await KafkaTestKit.CreateTopicAsync(bootstrap, destination, 3);
        var leaseTopic = KafkaTestKit.NewName("leases");
        var a = await StartNodeAsync("node-a", bootstrap, clusterTopic, leaseTopic, destination);
        var b = await StartNodeAsync("node-b", bootstrap, clusterTopic, leaseTopic, destination);
        var running = new List<RunningServer> { a, b };
        try
        {
            // Both replicas hold the same changes, as the applier would leave them: same ids, bodies and log positions.
            await WriteOrdersAsync([a, b], 1, 300);
            using var timeout = new CancellationTokenSource(Deadline);
            var (owner, standby) = await WaitForOwnerAsync(a, b, timeout.Token);
            Assert.Equal(EtlTaskState.Standby, Runner(standby).GetStatus().State);

            // Everything sent, its progress through the cluster topic on the standby: its local progress moved over it.
            var first = EtlTestKit.ConsumeKafka(bootstrap, destination, 300);
            await WaitUntilAsync(() => Runner(standby).GetStatus().LastSentEtag == Store(standby).LastEtag, timeout.Token);

            // The owner stops; the standby takes over and sends what is new, not what was confirmed.
            running.Remove(owner);
            await owner.DisposeAsync();
            await WaitUntilAsync(() => Runner(standby).GetStatus().State == EtlTaskState.Running, timeout.Token);
            await WriteOrdersAsync([standby], 301, 400);
            var all = EtlTestKit.ConsumeKafka(bootstrap, destination, 400);

            var bySubject = all.GroupBy(static r => r.Event.Subject!).ToDictionary(static g => g.Key, static g => g.ToList());
            for (var i = 1; i <= 400; i++)
            {
                Assert.True(bySubject.ContainsKey($"orders/{i}"), $"orders/{i} never arrived");
            }

            foreach (var (subject, copies) in bySubject)
            {
                Assert.Single(copies.Select(static c => c.Event.Id).Distinct());
            }

            // What the first owner had confirmed before it stopped was not sent again.
            Assert.Equal(300, first.Count);
            for (var i = 1; i <= 300; i++)
            {
                Assert.Single(bySubject[$"orders/{i}"]);
            }

            Assert.Equal(400, all.Count);
        }
        finally
        {
            foreach (var node in running)
            {
                await node.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task An_owner_stopped_mid_stream_leaves_every_change_sent_at_least_once_with_one_id_per_change()
    {
        var kafka = await brokers.GetKafkaAsync();
        var bootstrap = kafka.BootstrapServers;
        var clusterTopic = KafkaTestKit.NewName("cluster");
        var destination = KafkaTestKit.NewName("etl-out");
        await KafkaTestKit.CreateTopicAsync(bootstrap, destination, 3);
        var leaseTopic = KafkaTestKit.NewName("leases");
        var a = await StartNodeAsync("node-a", bootstrap, clusterTopic, leaseTopic, destination);
        var b = await StartNodeAsync("node-b", bootstrap, clusterTopic, leaseTopic, destination);
        var running = new List<RunningServer> { a, b };
        try
        {
            using var timeout = new CancellationTokenSource(Deadline);
            var (owner, standby) = await WaitForOwnerAsync(a, b, timeout.Token);
            const int Changes = 20_000;
            await WriteOrdersAsync([a, b], 1, Changes);

            // Stopped while sending: some of it sent and recorded, some in flight, the rest not read yet.
            await WaitUntilAsync(() => Runner(owner).GetStatus().MessagesSent > 0, timeout.Token);
            running.Remove(owner);
            await owner.DisposeAsync();
            await WaitUntilAsync(() => Runner(standby).GetStatus().LastSentEtag == Store(standby).LastEtag, timeout.Token);

            var all = EtlTestKit.ConsumeKafka(bootstrap, destination, Changes);
            var bySubject = all.GroupBy(static r => r.Event.Subject!).ToDictionary(static g => g.Key, static g => g.Select(static r => r.Event.Id).Distinct().ToList());
            Assert.Equal(Changes, bySubject.Count);
            Assert.All(bySubject.Values, static ids => Assert.Single(ids));
        }
        finally
        {
            foreach (var node in running)
            {
                await node.DisposeAsync();
            }
        }
    }

    private static EtlTaskRunner Runner(RunningServer node) => node.Services.GetRequiredService<EtlService>().Find(Task)!;

    private static DocumentStore Store(RunningServer node) => node.Services.GetRequiredService<DocumentStore>();

    private static async Task WriteOrdersAsync(IReadOnlyList<RunningServer> nodes, int from, int to)
    {
        foreach (var node in nodes)
        {
            var batch = new WriteBatch();
            for (var i = from; i <= to; i++)
            {
                batch.Put($"orders/{i}", "Orders", System.Text.Encoding.UTF8.GetBytes($$"""{"N":{{i}}}"""), new LogPosition("orders-src", i % 3, i / 3));
            }

            await Store(node).WriteAsync(batch);
        }
    }

    private static async Task<(RunningServer Owner, RunningServer Standby)> WaitForOwnerAsync(RunningServer a, RunningServer b, CancellationToken timeout)
    {
        await WaitUntilAsync(() => Runner(a).GetStatus().State == EtlTaskState.Running || Runner(b).GetStatus().State == EtlTaskState.Running, timeout);

        // The other has joined the group by now or soon; it must never run beside the owner.
        await System.Threading.Tasks.Task.Delay(TimeSpan.FromSeconds(2), timeout);
        var aOwns = a.Services.GetRequiredService<TaskOwnership>().Local().Single().IsThisNode;
        var bOwns = b.Services.GetRequiredService<TaskOwnership>().Local().Single().IsThisNode;
        Assert.True(aOwns ^ bOwns, $"node-a owns: {aOwns}, node-b owns: {bOwns}");
        return aOwns ? (a, b) : (b, a);
    }

    private static async Task WaitUntilAsync(Func<bool> condition, CancellationToken timeout)
    {
        while (!condition())
        {
            await System.Threading.Tasks.Task.Delay(50, timeout);
        }
    }

    private Task<RunningServer> StartNodeAsync(string node, string bootstrap, string clusterTopic, string leaseTopic, string destination) =>
        RunningServer.StartAsync(
            _directory.Combine(node),
            $"--Ingest:Cluster:Node={node}",
            $"--Ingest:Cluster:BootstrapServers={bootstrap}",
            $"--Ingest:Cluster:Topic={clusterTopic}",
            $"--Ingest:Cluster:LeaseTopic={leaseTopic}",
            "--Ingest:Cluster:SessionTimeout=00:00:06",
            "--Ingest:Cluster:Partitions=3",
            $"--Ingest:Etl:0:Name={Task}",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={bootstrap}",
            $"--Ingest:Etl:0:Kafka:Topic={destination}",
            "--Ingest:Etl:0:Source=/ingest/test");

    public void Dispose() => _directory.Dispose();
}
