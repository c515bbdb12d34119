using Ingest.Server.Tests.Hosting;
using Ingest.Testing;
using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Cluster;

/// <summary>Nodes "a" and "b" of one cluster: each its own data directory, one cluster topic with a GUID suffix.</summary>
internal sealed class TwoNodes : IAsyncDisposable
{
    private TwoNodes(RunningServer a, RunningServer b, TestDirectory directoryA, TestDirectory directoryB, string topic)
    {
        A = a;
        B = b;
        DirectoryA = directoryA;
        DirectoryB = directoryB;
        Topic = topic;
    }

    public RunningServer A { get; }

    public RunningServer B { get; }

    public TestDirectory DirectoryA { get; }

    public TestDirectory DirectoryB { get; }

    public string Topic { get; }

    public static Task<TwoNodes> StartAsync(BrokerFixture brokers, params string[] extra) => StartAsync(brokers, extra, extra);

    /// <summary>Nodes with settings of their own (each its own Kafka source group, say) after the cluster's.</summary>
    public static async Task<TwoNodes> StartAsync(BrokerFixture brokers, string[] extraA, string[] extraB)
    {
        var kafka = await brokers.GetKafkaAsync();
        var suffix = Guid.NewGuid().ToString("N");
        var topic = "ingest-cluster-" + suffix;
        var directoryA = new TestDirectory();
        var directoryB = new TestDirectory();
        RunningServer? a = null;
        try
        {
            a = await RunningServer.StartAsync(directoryA.Path, [.. Arguments(kafka.BootstrapServers, "a", topic, suffix), .. extraA]);
            var b = await RunningServer.StartAsync(directoryB.Path, [.. Arguments(kafka.BootstrapServers, "b", topic, suffix), .. extraB]);
            return new TwoNodes(a, b, directoryA, directoryB, topic);
        }
        catch
        {
            if (a is not null)
            {
                await a.DisposeAsync();
            }

            directoryA.Dispose();
            directoryB.Dispose();
            throw;
        }
    }

    public ValueTask DisposeAsync() => DisposeAsync(keepDirectories: false);

    /// <summary>Stops both nodes; the directories stay for a test that reopens them (it disposes them).</summary>
    public async ValueTask DisposeAsync(bool keepDirectories)
    {
        await A.DisposeAsync();
        await B.DisposeAsync();
        if (!keepDirectories)
        {
            DirectoryA.Dispose();
            DirectoryB.Dispose();
        }
    }

    private static string[] Arguments(string bootstrap, string node, string topic, string suffix) =>
    [
        $"--Ingest:Cluster:Node={node}",
        $"--Ingest:Cluster:BootstrapServers={bootstrap}",
        $"--Ingest:Cluster:Topic={topic}",
        $"--Ingest:Cluster:LeaseTopic=ingest-cluster-leases-{suffix}",
        "--Ingest:Cluster:Partitions=3",
        "--Ingest:Cluster:ApplyTimeout=00:00:30",
    ];
}
