using System.Text;
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

/// <summary>A RabbitMQ source on two in-process nodes of one cluster: only its owner consumes, forwarding into the cluster topic, and both apply it.</summary>
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

            // Forwarded by the owner, applied by both from the cluster topic.
            await WaitUntilAsync(() => Events(a) == 200 && Events(b) == 200 && Forwarding(owner).Forwarded == 200, timeout.Token);
            Assert.Equal(0, Forwarding(standby).GetStatus().Consumed);
            Assert.Equal(0u, await amqp.ReadyAsync(queue));
            var document = Store(standby).Get("m-7");
            Assert.NotNull(document);
            Assert.Equal("""{"N":7}""", Encoding.UTF8.GetString(document.Body.Span));

            // The owner stops: the other node takes the source and forwards what is published next.
            running.Remove(owner);
            await owner.DisposeAsync();
            await amqp.PublishAsync(queue, 100, i => Message(200 + i));
            await WaitUntilAsync(() => Events(standby) == 300, timeout.Token);
            Assert.True(Forwarding(standby).IsOwner);
            Assert.Equal(100, Forwarding(standby).Forwarded);
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

    private static Ingest.Documents.DocumentStore Store(RunningServer node) => node.Services.GetRequiredService<Ingest.Documents.DocumentStore>();

    private static int Events(RunningServer node) => Store(node).GetChangesSince(0, 10_000).Count(static c => c.Collection == "Events" && !c.IsDeleted);

    private static async Task WaitUntilAsync(Func<bool> condition, CancellationToken timeout)
    {
        while (!condition())
        {
            await Task.Delay(50, timeout);
        }
    }

    private Task<RunningServer> StartNodeAsync(string node, string bootstrap, string clusterTopic, string leaseTopic, Uri rabbit, string queue) =>
        RunningServer.StartAsync(
            _directory.Combine(node),
            $"--Ingest:Cluster:Node={node}",
            $"--Ingest:Cluster:BootstrapServers={bootstrap}",
            $"--Ingest:Cluster:Topic={clusterTopic}",
            $"--Ingest:Cluster:LeaseTopic={leaseTopic}",
            "--Ingest:Cluster:SessionTimeout=00:00:06",
            "--Ingest:Cluster:Partitions=3",
            $"--Ingest:Sources:RabbitMq:0:Name={Source}",
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            "--Ingest:Sources:RabbitMq:0:Collection=Events");

    public void Dispose() => _directory.Dispose();
}
