using Confluent.Kafka;
using Ingest.Server.Brokers;

namespace Ingest.Server.Cluster;

/// <summary>
/// One task's owner election through Kafka's group protocol: a consumer in the group <c>ingest-owner.&lt;task&gt;</c>
/// subscribed to the one-partition lease topic; the member assigned partition 0 owns the task, and while it does the
/// lease runs the task's work, cancelling it (and waiting for it to stop) as the assignment goes. Nothing is ever
/// produced to the lease topic: the group's assignment is the lease.
/// </summary>
/// <remarks>
/// Ways the lease goes, each stopping the work before another member can be assigned partition 0:
/// <list type="bullet">
/// <item>revoked (another member's join, or this node leaving on shutdown): the revoke callback returns only once the
/// work stopped, and the group's rebalance waits for it;</item>
/// <item>lost (librdkafka found its session expired): the work is stopped at once;</item>
/// <item>fenced: no word from the coordinator for two thirds of the session timeout (<see cref="CoordinatorContact"/>),
/// or the poll loop failed. The coordinator evicts a silent member only after the whole session timeout, so the work
/// stops first; the lease then rejoins with a new consumer.</item>
/// </list>
/// Assignment is cooperative-sticky so that a node joining (or coming back) does not take a running task away from its
/// owner. One consumer (one librdkafka client, a few threads) per task: Kafka needs a consumer per group, which is
/// fine for tens of tasks per node; for hundreds, a shared consumer per node with a custom assignor would be the next step.
/// Over 300 lines because the poll loop, its rebalance callbacks and the fence share the ownership state and its lock:
/// split, each part would need the others' invariants.
/// </remarks>
internal sealed partial class OwnerLease : IAsyncDisposable
{
    private const int LeasePartition = 0;
    private static readonly TimeSpan RejoinDelay = TimeSpan.FromSeconds(1);

    private readonly ClusterOptions _options;
    private readonly Func<CancellationToken, Task> _work;
    private readonly ILogger _logger;
    private readonly CoordinatorContact _contact;
    private readonly CancellationTokenSource _stop = new();
    private readonly Lock _ownership = new();
    private TaskCompletionSource _owned = NewSignal();
    private CancellationTokenSource? _workStop;
    private Task _workTask = Task.CompletedTask;
    private Thread? _thread;
    private volatile bool _isOwner;
    private int _disposed;

    public OwnerLease(string task, ClusterOptions options, Func<CancellationToken, Task> work, ILogger logger, TimeProvider time)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(task);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(work);
        ArgumentNullException.ThrowIfNull(logger);
        if (!options.Enabled)
        {
            throw new ArgumentException("An owner lease needs cluster mode (Ingest:Cluster:Node).", nameof(options));
        }

        Name = task;
        _options = options;
        _work = work;
        _logger = logger;
        _contact = new CoordinatorContact(options.SessionTimeout, time);
    }

    /// <summary>The task this lease elects an owner for: <c>etl.&lt;name&gt;</c> or <c>source.&lt;name&gt;</c>.</summary>
    public string Name { get; }

    /// <summary>The election's consumer group.</summary>
    public string GroupId => GroupIdOf(Name);

    /// <summary>Whether this node owns the task now (and its work runs).</summary>
    public bool IsOwner => _isOwner;

    /// <summary>Raised (on the lease's thread) after the work started (true) or stopped (false).</summary>
    public event Action<OwnerLease, bool>? OwnershipChanged;

    public static string GroupIdOf(string task) => $"ingest-owner.{task}";

    /// <summary>The client id every Kafka client of a node has in cluster mode: <c>ingest-&lt;node&gt;</c>.</summary>
    public static string ClientIdOf(string node) => $"ingest-{node}";

    /// <summary>Completes once this node owns the task (at once if it does).</summary>
    public Task WaitOwnedAsync(CancellationToken cancellationToken)
    {
        lock (_ownership)
        {
            return _owned.Task.WaitAsync(cancellationToken);
        }
    }

    /// <summary>Joins the election (the lease topic must exist: <see cref="LeaseTopic.EnsureAsync"/>).</summary>
    public void Start()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (_thread is not null)
        {
            throw new InvalidOperationException($"The owner lease of '{Name}' is already started.");
        }

        _thread = new Thread(Run) { IsBackground = true, Name = $"lease {Name}" };
        _thread.Start();
    }

    /// <summary>As <see cref="Start"/>, doing nothing if the lease was released (or started) meanwhile.</summary>
    public void TryStart()
    {
        if (Volatile.Read(ref _disposed) == 0 && _thread is null)
        {
            Start();
        }
    }

    private void Run()
    {
        while (!_stop.IsCancellationRequested)
        {
            _contact.Reset();
            IConsumer<Ignore, Ignore>? consumer = null;
            var fenced = false;
            try
            {
                consumer = Build();
                consumer.Subscribe(_options.LeaseTopic);
                while (!_stop.IsCancellationRequested)
                {
                    // Rebalance callbacks run inside Consume; nothing is ever produced to the lease topic.
                    consumer.Consume(_contact.StatisticsInterval);
                    if (_isOwner && _contact.IsSilent)
                    {
                        LogFenced(Name, _contact.FenceAfter.TotalSeconds);
                        Lose("fenced");
                        fenced = true;
                        break;
                    }
                }
            }
            catch (ConsumeException ex) when (!ex.Error.IsFatal)
            {
                LogPollFailed(Name, ex.Error.Reason);
                Lose("poll failed");
            }
            catch (Exception ex) when (ex is KafkaException or InvalidOperationException)
            {
                LogPollFailed(Name, ex.Message);
                Lose("poll failed");
            }
            finally
            {
                Leave(consumer, fenced);
            }

            _stop.Token.WaitHandle.WaitOne(_stop.IsCancellationRequested ? TimeSpan.Zero : RejoinDelay);
        }

        Lose("stopping");
    }

    /// <summary>Leaves the group: a clean close first (its revoke callback stops the work), then the client goes.</summary>
    private void Leave(IConsumer<Ignore, Ignore>? consumer, bool fenced)
    {
        if (consumer is null)
        {
            return;
        }

        try
        {
            if (!fenced)
            {
                consumer.Close();
            }
        }
        catch (KafkaException ex)
        {
            LogPollFailed(Name, ex.Message);
        }
        finally
        {
            Lose("left");
            consumer.Dispose();
        }
    }

    private IConsumer<Ignore, Ignore> Build()
    {
        var config = KafkaClientSettings.Apply(new ConsumerConfig(), _options.BootstrapServers!, _options.Settings);
        config.GroupId = GroupId;
        config.ClientId = ClientIdOf(_options.Node!);
        config.SessionTimeoutMs = (int)_options.SessionTimeout.TotalMilliseconds;
        config.HeartbeatIntervalMs = (int)Math.Max(100, _options.SessionTimeout.TotalMilliseconds / 10);
        config.PartitionAssignmentStrategy = PartitionAssignmentStrategy.CooperativeSticky;
        config.StatisticsIntervalMs = (int)_contact.StatisticsInterval.TotalMilliseconds;
        config.EnableAutoCommit = false;
        config.EnableAutoOffsetStore = false;
        config.AutoOffsetReset = AutoOffsetReset.Latest;
        return new ConsumerBuilder<Ignore, Ignore>(config)
            .SetPartitionsAssignedHandler((_, partitions) =>
            {
                if (HoldsLease(partitions))
                {
                    Gain();
                }
            })
            .SetPartitionsRevokedHandler((_, partitions) =>
            {
                if (HoldsLease(partitions))
                {
                    Lose("revoked");
                }
            })
            .SetPartitionsLostHandler((_, partitions) =>
            {
                if (HoldsLease(partitions))
                {
                    Lose("lost");
                }
            })
            .SetStatisticsHandler((_, json) => _contact.Record(json))
            .SetErrorHandler((_, error) => LogClientError(Name, error.Code, error.Reason))
            .SetLogHandler(static (_, _) => { })
            .Build();
    }

    private bool HoldsLease(IEnumerable<TopicPartition> partitions)
    {
        foreach (var partition in partitions)
        {
            if (partition.Partition.Value == LeasePartition && string.Equals(partition.Topic, _options.LeaseTopic, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static bool HoldsLease(IEnumerable<TopicPartitionOffset> partitions) =>
        partitions.Any(static p => p.Partition.Value == LeasePartition);

    private void Gain()
    {
        lock (_ownership)
        {
            if (_isOwner || _stop.IsCancellationRequested)
            {
                return;
            }

            _contact.Reset();
            _workStop = new CancellationTokenSource();
            var token = _workStop.Token;
            _workTask = Task.Run(() => RunWorkAsync(token), CancellationToken.None);
            _isOwner = true;
            _owned.TrySetResult();
        }

        LogGained(Name, _options.Node!);
        OwnershipChanged?.Invoke(this, true);
    }

    /// <summary>Stops the work and waits for it (up to the session timeout: a stuck task is left behind, and said so).</summary>
    private void Lose(string why)
    {
        Task work;
        CancellationTokenSource workStop;
        lock (_ownership)
        {
            if (!_isOwner)
            {
                return;
            }

            _isOwner = false;
            _owned = NewSignal();
            workStop = _workStop!;
            work = _workTask;
        }

        workStop.Cancel();
        if (!work.Wait(_options.SessionTimeout))
        {
            LogWorkStuck(Name, _options.SessionTimeout.TotalSeconds);
        }

        workStop.Dispose();
        LogLost(Name, why);
        OwnershipChanged?.Invoke(this, false);
    }

    private async Task RunWorkAsync(CancellationToken stop)
    {
        try
        {
            await _work(stop).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            LogWorkFailed(ex, Name);
        }
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Stops the work and leaves the group, so another node takes over at once rather than after the session timeout.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        if (_thread is { } thread)
        {
            await Task.Run(() => thread.Join(), CancellationToken.None).ConfigureAwait(false);
        }

        _stop.Dispose();
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Owner lease '{Task}': node '{Node}' owns it; the task runs here")]
    private partial void LogGained(string task, string node);

    [LoggerMessage(Level = LogLevel.Information, Message = "Owner lease '{Task}': no longer owned here ({Why}); the task stopped")]
    private partial void LogLost(string task, string why);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Owner lease '{Task}': no word from the group coordinator for {Seconds} s; the task stops before the lease can pass to another node")]
    private partial void LogFenced(string task, double seconds);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Owner lease '{Task}': polling the group failed ({Reason}); rejoining")]
    private partial void LogPollFailed(string task, string reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Owner lease '{Task}': client error {Code}: {Reason}")]
    private partial void LogClientError(string task, ErrorCode code, string reason);

    [LoggerMessage(Level = LogLevel.Error, Message = "Owner lease '{Task}': the task did not stop within {Seconds} s of losing the lease")]
    private partial void LogWorkStuck(string task, double seconds);

    [LoggerMessage(Level = LogLevel.Error, Message = "Owner lease '{Task}': the task failed; it runs again when this node next gains the lease")]
    private partial void LogWorkFailed(Exception exception, string task);
}
