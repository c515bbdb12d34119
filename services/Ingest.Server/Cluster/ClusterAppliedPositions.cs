using Ingest.Documents;

namespace Ingest.Server.Cluster;

/// <summary>
/// Per partition of the cluster topic, the next offset this node has yet to apply: read from the store at start,
/// then advanced by the applier each time a batch is durable (its positions committed in the same transaction as
/// its writes). Waiters are woken by that signal, not by polling.
/// </summary>
internal sealed class ClusterAppliedPositions
{
    private readonly Lock _gate = new();
    private long[] _next = [];
    private TaskCompletionSource _changed = NewSignal();

    /// <summary>The partitions of the cluster topic (0 until the topic is checked at start).</summary>
    public int PartitionCount
    {
        get
        {
            lock (_gate)
            {
                return _next.Length;
            }
        }
    }

    /// <summary>Sizes the table to the topic's partitions and loads what the store holds.</summary>
    public void Initialize(int partitions, IReadOnlyList<StoredSourcePosition> stored)
    {
        ArgumentNullException.ThrowIfNull(stored);
        var next = new long[partitions];
        foreach (var position in stored)
        {
            if ((uint)position.Position.Partition < (uint)partitions)
            {
                next[position.Position.Partition] = position.Position.NextOffset;
            }
        }

        lock (_gate)
        {
            _next = next;
        }

        Signal();
    }

    /// <summary>The next offset this node applies in <paramref name="partition"/> (0 when it has applied nothing there).</summary>
    public long NextOf(int partition)
    {
        lock (_gate)
        {
            return (uint)partition < (uint)_next.Length ? _next[partition] : 0;
        }
    }

    /// <summary>Every partition's next offset, for status pages.</summary>
    public long[] Snapshot()
    {
        lock (_gate)
        {
            return (long[])_next.Clone();
        }
    }

    /// <summary>Records that everything before <paramref name="next"/> in <paramref name="partition"/> is applied and durable.</summary>
    public void Advance(int partition, long next)
    {
        var advanced = false;
        lock (_gate)
        {
            if ((uint)partition < (uint)_next.Length && next > _next[partition])
            {
                _next[partition] = next;
                advanced = true;
            }
        }

        if (advanced)
        {
            Signal();
        }
    }

    /// <summary>Completes once <paramref name="position"/> is applied; throws <see cref="TimeoutException"/> after <paramref name="timeout"/>.</summary>
    public async Task WaitAsync(ClusterPosition position, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var timer = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timer.CancelAfter(timeout);
        while (true)
        {
            var signal = Volatile.Read(ref _changed);
            if (NextOf(position.Partition) > position.Offset)
            {
                return;
            }

            try
            {
                await signal.Task.WaitAsync(timer.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new ClusterApplyTimeoutException(
                    $"This node has not applied cluster position {position} within {timeout} (it has applied partition {position.Partition} up to offset {NextOf(position.Partition)}).");
            }
        }
    }

    private void Signal()
    {
        var previous = Interlocked.Exchange(ref _changed, NewSignal());
        previous.TrySetResult();
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
