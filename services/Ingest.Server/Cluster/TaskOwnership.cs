using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Server.Brokers;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Cluster;

/// <summary>
/// This node's owner leases (<see cref="OwnerLease"/>), one per ETL task and RabbitMQ source: creates them (the lease
/// topic made sure of first), and says who owns what, this node's own answer from its leases and the other nodes' from
/// the groups' members as the brokers describe them (the member holding partition 0, named by its client id
/// <c>ingest-&lt;node&gt;</c>). In a host, leases join their elections only once every hosted service has started, so
/// no task runs (nor forwards into the cluster topic) before the cluster's own parts have checked the topics and started.
/// </summary>
internal sealed class TaskOwnership(IOptions<ClusterOptions> options, ILoggerFactory loggers, TimeProvider time, IHostApplicationLifetime? lifetime = null)
{
    private readonly ClusterOptions _options = options.Value;
    private readonly Dictionary<string, OwnerLease> _leases = new(StringComparer.Ordinal);
    private readonly SemaphoreSlim _topic = new(1, 1);
    private bool _topicReady;

    /// <summary>Whether tasks need an owner here (cluster mode); in single-node mode every task runs on this node.</summary>
    public bool Enabled => _options.Enabled;

    /// <summary>This node's name (cluster mode).</summary>
    public string? Node => _options.Node;

    /// <summary>
    /// Joins the election for <paramref name="task"/>: <paramref name="work"/> runs while this node owns it, with a token
    /// cancelled as the lease goes. The lease is this service's until <see cref="ReleaseAsync"/>.
    /// </summary>
    public async Task<OwnerLease> AcquireAsync(string task, Func<CancellationToken, Task> work, CancellationToken cancellationToken)
    {
        await EnsureTopicAsync(cancellationToken).ConfigureAwait(false);
        var lease = new OwnerLease(task, _options, work, loggers.CreateLogger<OwnerLease>(), time);
        lock (_leases)
        {
            if (!_leases.TryAdd(task, lease))
            {
                throw new InvalidOperationException($"This node already runs an owner lease for '{task}'.");
            }
        }

        if (lifetime is { ApplicationStarted.IsCancellationRequested: false })
        {
            lifetime.ApplicationStarted.Register(static state => ((OwnerLease)state!).TryStart(), lease);
        }
        else
        {
            lease.Start();
        }

        return lease;
    }

    /// <summary>Leaves the election (stopping the work if it runs here), so another node takes the task at once.</summary>
    public async Task ReleaseAsync(OwnerLease lease)
    {
        ArgumentNullException.ThrowIfNull(lease);
        lock (_leases)
        {
            if (_leases.TryGetValue(lease.Name, out var registered) && ReferenceEquals(registered, lease))
            {
                _leases.Remove(lease.Name);
            }
        }

        await lease.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>The tasks this node takes part in, with whether it owns each (no broker round trip).</summary>
    public IReadOnlyList<TaskOwner> Local()
    {
        lock (_leases)
        {
            var owners = new List<TaskOwner>(_leases.Count);
            foreach (var lease in _leases.Values)
            {
                owners.Add(new TaskOwner(lease.Name, lease.IsOwner ? _options.Node : null, lease.IsOwner));
            }

            owners.Sort(static (a, b) => string.CompareOrdinal(a.Task, b.Task));
            return owners;
        }
    }

    /// <summary>Every task this node takes part in and its owner as the brokers describe the groups (this node's own leases answer for themselves).</summary>
    public async Task<IReadOnlyList<TaskOwner>> DescribeAsync(CancellationToken cancellationToken)
    {
        var local = Local();
        var unknown = local.Where(static o => !o.IsThisNode).Select(static o => OwnerLease.GroupIdOf(o.Task)).ToList();
        if (unknown.Count == 0)
        {
            return local;
        }

        var config = KafkaClientSettings.Apply(new AdminClientConfig(), _options.BootstrapServers!, _options.Settings);
        config.ClientId = OwnerLease.ClientIdOf(_options.Node!);
        using var admin = new AdminClientBuilder(config).SetLogHandler(static (_, _) => { }).Build();
        var described = await admin.DescribeConsumerGroupsAsync(unknown, new DescribeConsumerGroupsOptions { RequestTimeout = TimeSpan.FromSeconds(10) })
            .WaitAsync(cancellationToken).ConfigureAwait(false);
        var owners = new Dictionary<string, string?>(StringComparer.Ordinal);
        foreach (var group in described.ConsumerGroupDescriptions)
        {
            owners[group.GroupId] = OwnerNode(group, _options.LeaseTopic);
        }

        var result = new List<TaskOwner>(local.Count);
        foreach (var owner in local)
        {
            result.Add(owner.IsThisNode ? owner : owner with { Node = owners.GetValueOrDefault(OwnerLease.GroupIdOf(owner.Task)) });
        }

        return result;
    }

    /// <summary>The node of the member assigned the lease partition: its client id <c>ingest-&lt;node&gt;</c> (anything after a '/' dropped).</summary>
    internal static string? OwnerNode(ConsumerGroupDescription group, string leaseTopic)
    {
        foreach (var member in group.Members)
        {
            var assigned = member.Assignment?.TopicPartitions;
            if (assigned is null || !assigned.Exists(p => p.Partition.Value == 0 && string.Equals(p.Topic, leaseTopic, StringComparison.Ordinal)))
            {
                continue;
            }

            var clientId = member.ClientId;
            const string prefix = "ingest-";
            if (!clientId.StartsWith(prefix, StringComparison.Ordinal))
            {
                return clientId;
            }

            var node = clientId[prefix.Length..];
            var slash = node.IndexOf('/', StringComparison.Ordinal);
            return slash < 0 ? node : node[..slash];
        }

        return null;
    }

    private async Task EnsureTopicAsync(CancellationToken cancellationToken)
    {
        await _topic.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (!_topicReady)
            {
                await LeaseTopic.EnsureAsync(_options, cancellationToken).ConfigureAwait(false);
                _topicReady = true;
            }
        }
        finally
        {
            _topic.Release();
        }
    }
}
