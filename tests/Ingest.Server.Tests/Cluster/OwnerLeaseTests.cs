using Ingest.Server.Cluster;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Cluster;

[Collection(BrokerFixture.Collection)]
public sealed class OwnerLeaseTests(BrokerFixture brokers)
{
    // Generous: the group's first join waits out group.initial.rebalance.delay.ms, and a takeover the session timeout.
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task Exactly_one_node_owns_a_task_and_the_other_takes_over_when_it_leaves()
    {
        var kafka = await brokers.GetKafkaAsync();
        var leaseTopic = KafkaTestKit.NewName("leases");
        var task = $"etl.{Guid.NewGuid():N}";
        var running = new int[2];
        var overlap = 0;
        var a = new TaskOwnership(Options("node-a", kafka.BootstrapServers, leaseTopic), NullLoggerFactory.Instance, TimeProvider.System);
        var b = new TaskOwnership(Options("node-b", kafka.BootstrapServers, leaseTopic), NullLoggerFactory.Instance, TimeProvider.System);
        Func<CancellationToken, Task> Work(int node) => async stop =>
        {
            Interlocked.Increment(ref running[node]);
            if (Volatile.Read(ref running[1 - node]) > 0)
            {
                Interlocked.Increment(ref overlap);
            }

            try
            {
                await Task.Delay(Timeout.Infinite, stop);
            }
            finally
            {
                Interlocked.Decrement(ref running[node]);
            }
        };

        var leaseA = await a.AcquireAsync(task, Work(0), CancellationToken.None);
        var leaseB = await b.AcquireAsync(task, Work(1), CancellationToken.None);
        using var timeout = new CancellationTokenSource(Deadline);
        await Task.WhenAny(leaseA.WaitOwnedAsync(timeout.Token), leaseB.WaitOwnedAsync(timeout.Token)).Unwrap();

        // Both have joined once the group is stable; only one holds partition 0.
        await Task.Delay(TimeSpan.FromSeconds(2));
        Assert.True(leaseA.IsOwner ^ leaseB.IsOwner, $"node-a owns: {leaseA.IsOwner}, node-b owns: {leaseB.IsOwner}");
        var (owner, ownerService, other, otherService, otherName) = leaseA.IsOwner
            ? (leaseA, a, leaseB, b, "node-b")
            : (leaseB, b, leaseA, a, "node-a");
        var ownerName = otherName == "node-a" ? "node-b" : "node-a";
        Assert.Equal(ownerName, Assert.Single(ownerService.Local()).Node);
        var described = Assert.Single(await otherService.DescribeAsync(timeout.Token));
        Assert.Equal(new TaskOwner(task, ownerName, IsThisNode: false), described);

        await ownerService.ReleaseAsync(owner);
        Assert.False(owner.IsOwner);
        await other.WaitOwnedAsync(timeout.Token);

        Assert.True(other.IsOwner);
        Assert.Equal(0, Volatile.Read(ref overlap));
        Assert.Equal(new TaskOwner(task, otherName, IsThisNode: true), Assert.Single(otherService.Local()));
        await otherService.ReleaseAsync(other);
        Assert.Equal(0, running[0] + running[1]);
    }

    [Fact]
    public async Task A_lease_topic_with_more_than_one_partition_is_refused_with_the_setting_named()
    {
        var kafka = await brokers.GetKafkaAsync();
        var leaseTopic = KafkaTestKit.NewName("leases");
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, leaseTopic, 2);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => LeaseTopic.EnsureAsync(Options("node-a", kafka.BootstrapServers, leaseTopic).Value, CancellationToken.None));

        Assert.Contains("Ingest:Cluster:LeaseTopic", error.Message, StringComparison.Ordinal);
        Assert.Contains("2 partitions", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_coordinator_counts_as_heard_from_only_while_the_group_is_up()
    {
        Assert.True(CoordinatorContact.IsGroupUp("""{"name":"x","cgrp":{"state":"up","join_state":"steady"}}"""));
        Assert.False(CoordinatorContact.IsGroupUp("""{"name":"x","cgrp":{"state":"wait-broker-transport"}}"""));
        Assert.False(CoordinatorContact.IsGroupUp("""{"name":"x"}"""));
        Assert.False(CoordinatorContact.IsGroupUp("not json"));
    }

    [Fact]
    public void A_lease_fences_itself_after_two_thirds_of_the_session_without_the_coordinator()
    {
        var time = new Ingest.Server.Tests.Batching.ManualTimeProvider();
        var contact = new CoordinatorContact(TimeSpan.FromSeconds(9), time);
        time.Advance(TimeSpan.FromSeconds(5));
        contact.Record("""{"cgrp":{"state":"up"}}""");
        time.Advance(TimeSpan.FromSeconds(5.9));
        Assert.False(contact.IsSilent);
        contact.Record("""{"cgrp":{"state":"wait-coord"}}""");
        time.Advance(TimeSpan.FromSeconds(0.1));
        Assert.True(contact.IsSilent);
    }

    internal static IOptions<ClusterOptions> Options(string node, string bootstrap, string leaseTopic) => Microsoft.Extensions.Options.Options.Create(new ClusterOptions
    {
        Node = node,
        BootstrapServers = bootstrap,
        LeaseTopic = leaseTopic,
        SessionTimeout = TimeSpan.FromSeconds(6),
    });
}
