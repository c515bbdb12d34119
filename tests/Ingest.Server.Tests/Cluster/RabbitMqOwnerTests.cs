using System.Text;
using Ingest.Server.Cluster;
using Ingest.Server.Sources;
using Ingest.Server.Sources.RabbitMq;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Server.Tests.Sources.RabbitMq;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;

namespace Ingest.Server.Tests.Cluster;

/// <summary>A RabbitMQ source on two in-process nodes of one cluster: only its owner consumes, forwarding into the cluster topic.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class RabbitMqOwnerTests(BrokerFixture brokers) : IDisposable
{
    private const string Source = "events";
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(120);
    private readonly TestDirectory _directory = new();

    [Fact]
    public async Task Only_the_owner_consumes_and_forwards_each_message_with_its_headers_and_the_next_owner_goes_on()
    {
        var kafka = await brokers.GetKafkaAsync();
        var rabbit = await brokers.GetRabbitMqAsync();
        var clusterTopic = KafkaTestKit.NewName("cluster");
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, clusterTopic, 3);
        var leaseTopic = KafkaTestKit.NewName("leases");
        var queue = KafkaTestKit.NewName("owned");
        await using var amqp = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await amqp.DeclareAsync(queue);
        var a = await StartNodeAsync("node-a", kafka.BootstrapServers, clusterTopic, leaseTopic, rabbit.Uri, queue);
        var b = await StartNodeAsync("node-b", kafka.BootstrapServers, clusterTopic, leaseTopic, rabbit.Uri, queue);
        var running = new List<RunningServer> { a, b };
        try
        {
            using var timeout = new CancellationTokenSource(Deadline);
            await WaitUntilAsync(() => Forwarding(a).IsOwner || Forwarding(b).IsOwner, timeout.Token);
            await Task.Delay(TimeSpan.FromSeconds(2), timeout.Token);
            Assert.True(Forwarding(a).IsOwner ^ Forwarding(b).IsOwner);
            var (owner, standby) = Forwarding(a).IsOwner ? (a, b) : (b, a);

            await amqp.PublishAsync(queue, 200, Message);
            await WaitUntilAsync(() => SourceRecords(standby).Count >= 200 && Forwarding(owner).Forwarded == 200, timeout.Token);
            Assert.Equal(0, Forwarding(standby).GetStatus().Consumed);
            var first = SourceRecords(standby);
            Assert.Equal(200, first.Count);
            var (source, forwardedQueue, messageId, headers) = ForwardedAmqpMessage.Read(first[0]);
            Assert.Equal((Source, queue, "m-0"), (source, forwardedQueue, messageId));
            Assert.Equal("0", Encoding.UTF8.GetString(Assert.Single(headers, static h => h.Key == "x-n").Value));
            Assert.Equal("""{"N":0}""", Encoding.UTF8.GetString(first[0].Body.Span));
            Assert.Equal(0u, await amqp.ReadyAsync(queue));

            // The owner stops: the other node takes the source and forwards what is published next.
            running.Remove(owner);
            await owner.DisposeAsync();
            await amqp.PublishAsync(queue, 100, i => Message(200 + i));
            await WaitUntilAsync(() => SourceRecords(standby).Count >= 300, timeout.Token);
            var ids = SourceRecords(standby).Select(static r => ForwardedAmqpMessage.Read(r).MessageId).ToHashSet();
            Assert.Equal(300, ids.Count);
            Assert.True(Forwarding(standby).IsOwner);
        }
        finally
        {
            foreach (var node in running)
            {
                await node.DisposeAsync();
            }
        }
    }

    private static (BasicProperties, byte[]) Message(int i) =>
        (new BasicProperties { MessageId = $"m-{i}", Headers = new Dictionary<string, object?> { ["x-n"] = i.ToString(System.Globalization.CultureInfo.InvariantCulture) } },
         Encoding.UTF8.GetBytes($$"""{"N":{{i}}}"""));

    private static RabbitMqForwardingSource Forwarding(RunningServer node) =>
        (RabbitMqForwardingSource)node.Services.GetRequiredService<IngestionService>().Find(Source)!;

    private static List<ClusterRecord> SourceRecords(RunningServer node) =>
        [.. node.Services.GetRequiredService<KafkaTestClusterLog>().Unhandled.Where(static r => r.Kind == ForwardedAmqpMessage.Kind)];

    private static async Task WaitUntilAsync(Func<bool> condition, CancellationToken timeout)
    {
        while (!condition())
        {
            await Task.Delay(50, timeout);
        }
    }

    private Task<RunningServer> StartNodeAsync(string node, string bootstrap, string clusterTopic, string leaseTopic, Uri rabbit, string queue) =>
        RunningServer.StartWithServicesAsync(
            _directory.Combine(node),
            services => KafkaTestClusterLog.Register(services, bootstrap, clusterTopic),
            $"--Ingest:Cluster:Node={node}",
            $"--Ingest:Cluster:BootstrapServers={bootstrap}",
            $"--Ingest:Cluster:Topic={clusterTopic}",
            $"--Ingest:Cluster:LeaseTopic={leaseTopic}",
            "--Ingest:Cluster:SessionTimeout=00:00:06",
            $"--Ingest:Sources:RabbitMq:0:Name={Source}",
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            "--Ingest:Sources:RabbitMq:0:Collection=Events");

    public void Dispose() => _directory.Dispose();
}
