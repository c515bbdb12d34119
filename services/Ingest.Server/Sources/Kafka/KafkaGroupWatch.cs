using System.Collections.Concurrent;
using System.Globalization;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Server.Brokers;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Watches a Kafka source's consumer group from beside it, with an admin client of its own (never the
/// consumer, which belongs to the consume thread): after each assignment, and every 30 s so that a joiner
/// that did not cause a rebalance is noticed too, it describes the group and keeps the members that are not
/// this source (told apart by the consumer's member id). Such members each read only part of the topic, so
/// unless the source says <c>SharedGroup: true</c> this is reported as a split. After each assignment it also
/// asks where each partition's log starts: a start above where the store stands means retention removed
/// records this store never read (see docs/cluster.md, "Rebuilding a node").
/// </summary>
internal sealed partial class KafkaGroupWatch : IAsyncDisposable
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan RetrySoon = TimeSpan.FromSeconds(2);
    private static readonly TimeSpan AdminTimeout = TimeSpan.FromSeconds(10);

    private readonly string _source;
    private readonly string _group;
    private readonly string _clientId;
    private readonly bool _shared;
    private readonly AdminClientConfig _adminConfig;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _wake = new(0, 1);
    private readonly ConcurrentQueue<TopicPartitionOffset> _starts = new();
    private readonly ConcurrentDictionary<TopicPartition, RetentionLoss> _losses = new();
    private readonly CancellationTokenSource _stop = new();
    private volatile string? _memberId;
    private volatile IReadOnlyList<GroupMemberStatus> _others = [];
    private volatile string? _split;
    private Task? _loop;
    private int _disposed;

    public KafkaGroupWatch(string source, KafkaSourceOptions options, string group, string clientId, ILogger logger)
    {
        _source = source;
        _group = group;
        _clientId = clientId;
        _shared = options.SharedGroup;
        _logger = logger;
        _adminConfig = KafkaClientSettings.Apply(new AdminClientConfig(), options.BootstrapServers!, options.Settings);
        _adminConfig.ClientId = clientId + "/admin";
    }

    /// <summary>The source's group and what was last seen of it.</summary>
    public SourceGroupStatus Status
    {
        get
        {
            var losses = _losses.Values.ToList();
            losses.Sort(static (a, b) => a.Topic == b.Topic ? a.Partition.CompareTo(b.Partition) : string.CompareOrdinal(a.Topic, b.Topic));
            return new SourceGroupStatus(_group, _clientId, _shared, _memberId, _others, _split, losses);
        }
    }

    public void Start() => _loop = Task.Run(() => RunAsync(_stop.Token));

    /// <summary>
    /// The consumer got an assignment (consume thread): its member id now, and where each assigned partition
    /// resumes (the store's next offset; <see cref="Offset.Beginning"/> where it has none, <see cref="Offset.End"/>
    /// where the source starts at the end and nothing can be missed).
    /// </summary>
    public void OnAssigned(string? memberId, IReadOnlyList<TopicPartitionOffset> resumeAt)
    {
        _memberId = string.IsNullOrEmpty(memberId) ? null : memberId;
        foreach (var start in resumeAt)
        {
            if (start.Offset != Offset.End)
            {
                _starts.Enqueue(start);
            }
        }

        Wake();
    }

    /// <summary>The consumer left the group: it has no member id any more.</summary>
    public void OnLeft() => _memberId = null;

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        if (_loop is not null)
        {
            await _loop.ConfigureAwait(false);
        }

        _stop.Dispose();
        _wake.Dispose();
    }

    private void Wake()
    {
        try
        {
            if (_wake.CurrentCount == 0)
            {
                _wake.Release();
            }
        }
        catch (Exception ex) when (ex is SemaphoreFullException or ObjectDisposedException)
        {
            // Already awake, or stopped.
        }
    }

    private async Task RunAsync(CancellationToken stop)
    {
        using var admin = new AdminClientBuilder(_adminConfig).SetLogHandler(static (_, _) => { }).Build();
        var wait = Interval;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await _wake.WaitAsync(wait, stop).ConfigureAwait(false);
                wait = Interval;
                if (!await CheckStartsAsync(admin).ConfigureAwait(false) | !await CheckMembersAsync(admin).ConfigureAwait(false))
                {
                    wait = RetrySoon;
                }
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                break;
            }
            catch (Exception ex) when (ex is KafkaException or TimeoutException)
            {
                // The broker is away: the source's own status says so; look again later.
                LogCheckFailed(_logger, _source, _group, ex.Message);
                wait = RetrySoon;
            }
        }
    }

    // False when the answer was inconclusive (mid-rebalance, or this member not in it yet): look again soon.
    private async Task<bool> CheckMembersAsync(IAdminClient admin)
    {
        var me = _memberId;
        if (me is null)
        {
            return true;
        }

        var result = await admin.DescribeConsumerGroupsAsync([_group], new DescribeConsumerGroupsOptions { RequestTimeout = AdminTimeout })
            .ConfigureAwait(false);
        var group = result.ConsumerGroupDescriptions[0];
        var found = false;
        var others = new List<GroupMemberStatus>();
        foreach (var member in group.Members)
        {
            if (member.ConsumerId == me)
            {
                found = true;
                continue;
            }

            var partitions = new List<string>();
            foreach (var tp in member.Assignment?.TopicPartitions ?? [])
            {
                partitions.Add(string.Create(CultureInfo.InvariantCulture, $"{tp.Topic}[{tp.Partition.Value}]"));
            }

            others.Add(new GroupMemberStatus(member.ConsumerId, member.ClientId, member.Host, partitions));
        }

        if (!found)
        {
            return false;
        }

        others.Sort(static (a, b) => string.CompareOrdinal(a.MemberId, b.MemberId));
        Publish(others);
        return true;
    }

    private void Publish(List<GroupMemberStatus> others)
    {
        var before = _others;
        var changed = before.Count != others.Count;
        for (var i = 0; !changed && i < others.Count; i++)
        {
            changed = before[i].MemberId != others[i].MemberId;
        }

        _others = others;
        _split = others.Count == 0 || _shared ? null : DescribeSplit(others);
        if (!changed)
        {
            return;
        }

        if (others.Count == 0)
        {
            LogAlone(_logger, _source, _group);
        }
        else if (_shared)
        {
            LogShared(_logger, _source, _group, Describe(others));
        }
        else
        {
            LogSplit(_logger, _source, _split!);
        }
    }

    private string DescribeSplit(List<GroupMemberStatus> others) =>
        $"consumer group '{_group}' has {(others.Count == 1 ? "another member" : $"{others.Count} other members")}: {Describe(others)}. "
        + "Each member reads only its share of the partitions, so this store does not hold the whole topic. "
        + "Give each Ingest its own GroupId (in cluster mode every node has its own group), stop the other consumer, "
        + "or set SharedGroup: true on the source if sharing is intended.";

    private static string Describe(List<GroupMemberStatus> members)
    {
        var parts = new string[members.Count];
        for (var i = 0; i < members.Count; i++)
        {
            var member = members[i];
            var partitions = member.Partitions.Count == 0 ? "no partitions" : string.Join(", ", member.Partitions);
            parts[i] = $"{member.ClientId} on {member.Host} (member {member.MemberId}, {partitions})";
        }

        return string.Join("; ", parts);
    }

    // False when some starts could not be checked (they wait for the next round).
    private async Task<bool> CheckStartsAsync(IAdminClient admin)
    {
        var starts = new Dictionary<TopicPartition, long>();
        while (_starts.TryDequeue(out var start))
        {
            starts[start.TopicPartition] = start.Offset == Offset.Beginning ? 0 : start.Offset.Value;
        }

        if (starts.Count == 0)
        {
            return true;
        }

        var specs = new List<TopicPartitionOffsetSpec>(starts.Count);
        foreach (var tp in starts.Keys)
        {
            specs.Add(new TopicPartitionOffsetSpec { TopicPartition = tp, OffsetSpec = OffsetSpec.Earliest() });
        }

        ListOffsetsResult result;
        try
        {
            result = await admin.ListOffsetsAsync(specs, new ListOffsetsOptions { RequestTimeout = AdminTimeout }).ConfigureAwait(false);
        }
        catch (KafkaException)
        {
            foreach (var (tp, offset) in starts)
            {
                _starts.Enqueue(new TopicPartitionOffset(tp, new Offset(offset)));
            }

            throw;
        }

        foreach (var info in result.ResultInfos)
        {
            var tpo = info.TopicPartitionOffsetError;
            if (tpo.Error.IsError || !starts.TryGetValue(tpo.TopicPartition, out var expected) || tpo.Offset.Value <= expected)
            {
                continue;
            }

            var loss = new RetentionLoss(tpo.Topic, tpo.Partition.Value, tpo.Offset.Value, tpo.Offset.Value - expected);
            _losses[tpo.TopicPartition] = loss;
            LogRetentionLoss(_logger, _source, loss.Topic, loss.Partition, loss.FirstAvailableOffset, loss.Lost);
        }

        return true;
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': {Split}")]
    private static partial void LogSplit(ILogger logger, string source, string split);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': consumer group '{Group}' is shared (SharedGroup: true) with {Members}")]
    private static partial void LogShared(ILogger logger, string source, string group, string members);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': consumer group '{Group}' has no member but this source now")]
    private static partial void LogAlone(ILogger logger, string source, string group);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Kafka source '{Source}': could not describe consumer group '{Group}' ({Reason}); trying again")]
    private static partial void LogCheckFailed(ILogger logger, string source, string group, string reason);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "Kafka source '{Source}': {Topic}[{Partition}] starts at offset {FirstAvailable}: the {Lost} records before it were removed by the topic's retention before this store read them, so they cannot be rebuilt from the log")]
    private static partial void LogRetentionLoss(ILogger logger, string source, string topic, int partition, long firstAvailable, long lost);
}
