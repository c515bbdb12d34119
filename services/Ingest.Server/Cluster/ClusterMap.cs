using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Contracts.Http;
using Ingest.Server.Brokers;
using Ingest.Server.Sources;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Cluster;

/// <summary>
/// What <c>GET /cluster</c> answers: the nodes this node knows of, found through Kafka alone (no membership
/// protocol of our own). A node is known by its consumer groups: <c>&lt;GroupId&gt;.&lt;node&gt;</c> for each Kafka
/// source, <c>&lt;cluster topic&gt;.&lt;node&gt;</c> for the cluster topic's applier, and its client id
/// (<c>ingest-&lt;node&gt;</c>) among the members of the <c>ingest-owner.&lt;task&gt;</c> groups. A group with active
/// members means its node is alive; its committed offsets against the partitions' high watermarks give its lag.
/// Answers are cached for a few seconds so the endpoint can be polled.
/// </summary>
internal sealed class ClusterMap(IOptions<ClusterOptions> clusterOptions, IOptions<SourcesOptions> sourcesOptions, IngestionService ingestion, TimeProvider time)
{
    public const string OwnerGroupPrefix = "ingest-owner.";

    private static readonly TimeSpan CacheFor = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan AdminTimeout = TimeSpan.FromSeconds(10);

    private readonly ClusterOptions _cluster = clusterOptions.Value;
    private readonly SemaphoreSlim _refresh = new(1, 1);
    private ClusterResponse? _cached;

    public async Task<ClusterResponse> GetAsync(CancellationToken cancellationToken)
    {
        if (!_cluster.Enabled)
        {
            return Single();
        }

        if (Fresh(_cached) is { } cached)
        {
            return cached;
        }

        await _refresh.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            // Callers that waited here share the answer the first one fetched.
            if (Fresh(_cached) is { } fetched)
            {
                return fetched;
            }

            _cached = await FetchAsync(cancellationToken).ConfigureAwait(false);
            return _cached;
        }
        finally
        {
            _refresh.Release();
        }
    }

    private ClusterResponse? Fresh(ClusterResponse? cached) => cached is not null && time.GetUtcNow() - cached.CheckedAt < CacheFor ? cached : null;

    // One node: its own sources, from their status (no broker call).
    private ClusterResponse Single()
    {
        var clientId = NodeIdentity.ClientId(_cluster);
        var groups = new List<ClusterGroupEntry>();
        foreach (var source in ingestion.Sources)
        {
            var status = source.GetStatus();
            if (status.Group is not { } group)
            {
                continue;
            }

            var members = new List<string> { group.ClientId };
            foreach (var other in group.OtherMembers)
            {
                members.Add(other.ClientId);
            }

            var partitions = status.Partitions
                .Select(static p => new PartitionStatsEntry(p.Name, p.Partition, p.CommittedOffset, p.HighWatermark, p.Lag))
                .ToArray();
            groups.Add(new ClusterGroupEntry(group.GroupId, "source", status.Name, status.Connected, members, partitions));
        }

        var self = new ClusterNodeEntry(NodeIdentity.NodeOf(clientId)!, Self: true, Alive: true, groups);
        return new ClusterResponse("single", null, clientId, [self], []) { CheckedAt = time.GetUtcNow() };
    }

    private async Task<ClusterResponse> FetchAsync(CancellationToken cancellationToken)
    {
        var node = _cluster.Node!;
        var nodes = new SortedDictionary<string, NodeGroups>(StringComparer.Ordinal) { [node] = new() };
        var owners = new List<ClusterOwnerEntry>();
        var errors = new List<string>();

        var sources = sourcesOptions.Value.Kafka;
        for (var i = 0; i < sources.Count; i++)
        {
            var source = sources[i];
            var prefix = source.GroupId + ".";
            await CollectAsync(
                KafkaClientSettings.Apply(new AdminClientConfig(), source.BootstrapServers!, source.Settings),
                group => group.StartsWith(prefix, StringComparison.Ordinal) ? ("source", source.EffectiveName(i), group[prefix.Length..]) : null,
                nodes, owners, errors, cancellationToken).ConfigureAwait(false);
        }

        var applierPrefix = _cluster.Topic + "."; // ClusterApplier.GroupId
        await CollectAsync(
            KafkaClientSettings.Apply(new AdminClientConfig(), _cluster.BootstrapServers!, _cluster.Settings),
            group => group.StartsWith(applierPrefix, StringComparison.Ordinal) ? ("cluster", null, group[applierPrefix.Length..])
                : group.StartsWith(OwnerGroupPrefix, StringComparison.Ordinal) ? ("owner", null, group[OwnerGroupPrefix.Length..]) : null,
            nodes, owners, errors, cancellationToken).ConfigureAwait(false);

        var entries = new List<ClusterNodeEntry>(nodes.Count);
        foreach (var (name, found) in nodes)
        {
            var entry = new ClusterNodeEntry(name, name == node, found.Alive || name == node, found.Groups);
            if (entry.Self)
            {
                entries.Insert(0, entry);
            }
            else
            {
                entries.Add(entry);
            }
        }

        owners.Sort(static (a, b) => string.CompareOrdinal(a.Task, b.Task));
        return new ClusterResponse("cluster", node, NodeIdentity.ClientId(_cluster), entries, owners)
        {
            CheckedAt = time.GetUtcNow(),
            Error = errors.Count == 0 ? null : string.Join("; ", errors.Distinct()),
        };
    }

    // Lists the groups of one Kafka cluster, keeps those `classify` recognises (kind, source, node or task), and
    // describes them: members, committed offsets, high watermarks; owner groups give a task's owner instead.
    private async Task CollectAsync(
        AdminClientConfig config, Func<string, (string Kind, string? Source, string Name)?> classify, SortedDictionary<string, NodeGroups> nodes,
        List<ClusterOwnerEntry> owners, List<string> errors, CancellationToken cancellationToken)
    {
        config.ClientId = NodeIdentity.ClientId(_cluster, "cluster-map");
        using var admin = new AdminClientBuilder(config).SetLogHandler(static (_, _) => { }).Build();
        try
        {
            var listed = await admin.ListConsumerGroupsAsync(new ListConsumerGroupsOptions { RequestTimeout = AdminTimeout }).ConfigureAwait(false);
            var matched = new Dictionary<string, (string Kind, string? Source, string Name)>(StringComparer.Ordinal);
            foreach (var listing in listed.Valid)
            {
                if (classify(listing.GroupId) is { } found && found.Name.Length > 0)
                {
                    matched[listing.GroupId] = found;
                }
            }

            if (matched.Count == 0)
            {
                return;
            }

            var described = await admin.DescribeConsumerGroupsAsync(matched.Keys, new DescribeConsumerGroupsOptions { RequestTimeout = AdminTimeout })
                .ConfigureAwait(false);
            foreach (var group in described.ConsumerGroupDescriptions)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var (kind, source, name) = matched[group.GroupId];
                if (kind == "owner")
                {
                    // Several clusters may share a Kafka cluster: an election counts when it is over this cluster's lease topic.
                    if (Owner(name, group) is not { } owner)
                    {
                        continue;
                    }

                    owners.Add(owner);
                    foreach (var member in group.Members)
                    {
                        if (NodeIdentity.NodeOf(member.ClientId) is { } memberNode)
                        {
                            NodeOf(nodes, memberNode).Alive = true;
                        }
                    }

                    continue;
                }

                var partitions = await PositionsAsync(admin, group.GroupId, kind == "cluster" ? _cluster.Topic : null).ConfigureAwait(false);
                if (kind == "cluster" && partitions.Length == 0 && !Holds(group, _cluster.Topic))
                {
                    // Another cluster's applier (same node name, another cluster topic on these brokers).
                    continue;
                }

                var members = group.Members.Select(static m => m.ClientId).Order(StringComparer.Ordinal).ToArray();
                var groups = NodeOf(nodes, name);
                groups.Groups.Add(new ClusterGroupEntry(group.GroupId, kind, source, members.Length > 0, members, partitions));
                groups.Alive |= members.Length > 0;
            }
        }
        catch (KafkaException ex)
        {
            errors.Add($"{config.BootstrapServers}: {ex.Error.Reason}");
        }
    }

    // The member assigned the lease partition; null when no member holds this cluster's lease topic (another
    // cluster's election, or none settled yet).
    private ClusterOwnerEntry? Owner(string task, ConsumerGroupDescription group)
    {
        foreach (var member in group.Members)
        {
            foreach (var tp in member.Assignment?.TopicPartitions ?? [])
            {
                if (tp.Topic == _cluster.LeaseTopic && tp.Partition.Value == 0)
                {
                    return new ClusterOwnerEntry(task, group.GroupId, NodeIdentity.NodeOf(member.ClientId), member.ClientId);
                }
            }
        }

        return null;
    }

    private static bool Holds(ConsumerGroupDescription group, string topic)
    {
        foreach (var member in group.Members)
        {
            foreach (var tp in member.Assignment?.TopicPartitions ?? [])
            {
                if (tp.Topic == topic)
                {
                    return true;
                }
            }
        }

        return false;
    }

    // The group's committed offsets (librdkafka answers one group per request) against the partitions' ends.
    private static async Task<PartitionStatsEntry[]> PositionsAsync(IAdminClient admin, string group, string? onlyTopic)
    {
        var committed = await admin.ListConsumerGroupOffsetsAsync(
            [new ConsumerGroupTopicPartitions(group, null)], new ListConsumerGroupOffsetsOptions { RequestTimeout = AdminTimeout }).ConfigureAwait(false);
        var offsets = new List<TopicPartitionOffsetError>();
        foreach (var result in committed)
        {
            foreach (var partition in result.Partitions)
            {
                if (!partition.Error.IsError && partition.Offset.Value >= 0 && (onlyTopic is null || partition.Topic == onlyTopic))
                {
                    offsets.Add(partition);
                }
            }
        }

        var ends = new Dictionary<TopicPartition, long>();
        if (offsets.Count > 0)
        {
            var specs = offsets.Select(static o => new TopicPartitionOffsetSpec { TopicPartition = o.TopicPartition, OffsetSpec = OffsetSpec.Latest() });
            var listed = await admin.ListOffsetsAsync(specs, new ListOffsetsOptions { RequestTimeout = AdminTimeout }).ConfigureAwait(false);
            foreach (var info in listed.ResultInfos)
            {
                if (!info.TopicPartitionOffsetError.Error.IsError)
                {
                    ends[info.TopicPartitionOffsetError.TopicPartition] = info.TopicPartitionOffsetError.Offset.Value;
                }
            }
        }

        var entries = new PartitionStatsEntry[offsets.Count];
        for (var i = 0; i < entries.Length; i++)
        {
            var offset = offsets[i];
            long? end = ends.TryGetValue(offset.TopicPartition, out var high) ? high : null;
            entries[i] = new PartitionStatsEntry(offset.Topic, offset.Partition.Value, offset.Offset.Value, end, end is { } e ? Math.Max(0, e - offset.Offset.Value) : null);
        }

        Array.Sort(entries, static (a, b) => a.Name == b.Name ? a.Partition.CompareTo(b.Partition) : string.CompareOrdinal(a.Name, b.Name));
        return entries;
    }

    private static NodeGroups NodeOf(SortedDictionary<string, NodeGroups> nodes, string node)
    {
        if (!nodes.TryGetValue(node, out var groups))
        {
            nodes[node] = groups = new NodeGroups();
        }

        return groups;
    }

    private sealed class NodeGroups
    {
        public List<ClusterGroupEntry> Groups { get; } = [];

        public bool Alive { get; set; }
    }
}
