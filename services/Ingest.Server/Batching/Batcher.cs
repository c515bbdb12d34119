namespace Ingest.Server.Batching;

/// <summary>
/// Groups items Nagle-style: a batch closes when it holds <see cref="BatchingOptions.MaxMessages"/>
/// items, or <see cref="BatchingOptions.MaxBytes"/>, or <see cref="BatchingOptions.MaxDelay"/> has
/// passed since its first item, whichever comes first. Any number of producers add items; one
/// consumer takes closed batches and disposes each when done, which recycles its item list.
/// </summary>
/// <remarks>
/// Memory is bounded: once <see cref="BatchingOptions.MaxPendingBatches"/> closed batches wait for
/// the consumer, <see cref="AddAsync"/> waits until one is taken. One add can close two batches
/// (the open one, then its own), and the timer can close the open batch while producers wait,
/// so at most <c>MaxPendingBatches + 1</c> closed batches plus the open one hold items.
/// One lock guards all state; adding without waiting allocates nothing.
/// Over 300 lines for that reason: every method reads or changes the state the one lock guards (the
/// open batch, the closed queue, the pool, the two signals), so a part split off would share the
/// lock and its invariants; the closed <see cref="Batch{TItem}"/> is the part that stands alone.
/// </remarks>
public sealed class Batcher<TItem> : IDisposable
{
    private readonly int _maxMessages;
    private readonly long _maxBytes;
    private readonly TimeSpan _maxDelay;
    private readonly int _maxPending;
    private readonly int _initialCapacity;
    private readonly TimeProvider _time;
    private readonly ITimer _timer;
    private readonly Lock _lock = new();
    private readonly Queue<Batch<TItem>> _closed = new();
    private readonly Stack<Batch<TItem>> _pool = new();
    private Batch<TItem>? _open;
    private TaskCompletionSource? _roomAvailable;
    private TaskCompletionSource? _batchAvailable;
    private bool _completed;
    private bool _disposed;

    public Batcher(BatchingOptions options, TimeProvider? timeProvider = null, BatchStatistics? statistics = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.ThrowIfInvalid();
        _maxMessages = options.MaxMessages;
        _maxBytes = options.MaxBytes;
        _maxDelay = options.MaxDelay;
        _maxPending = options.MaxPendingBatches;
        _initialCapacity = Math.Min(_maxMessages, 1024);
        _time = timeProvider ?? TimeProvider.System;
        Statistics = statistics ?? new BatchStatistics();
        _timer = _time.CreateTimer(static state => ((Batcher<TItem>)state!).OnDelayElapsed(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    public BatchStatistics Statistics { get; }

    /// <summary>Closed batches waiting for the consumer.</summary>
    public int PendingBatches
    {
        get
        {
            lock (_lock)
            {
                return _closed.Count;
            }
        }
    }

    /// <summary>
    /// Adds an item of the given size. Completes at once unless the consumer has fallen behind,
    /// in which case it waits for room; that wait is how sources pause. If cancelled while
    /// waiting, the item was not added.
    /// </summary>
    /// <exception cref="InvalidOperationException">The batcher was completed.</exception>
    public ValueTask AddAsync(TItem item, int sizeBytes, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(sizeBytes);
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        Task room;
        lock (_lock)
        {
            ThrowIfCompleted();
            if (_closed.Count < _maxPending)
            {
                AddLocked(item, sizeBytes);
                return ValueTask.CompletedTask;
            }

            room = WaitForRoomLocked();
        }

        Statistics.RecordProducerWait();
        return AddAfterWaitAsync(item, sizeBytes, room, cancellationToken);
    }

    /// <summary>Takes the next closed batch without waiting, if there is one.</summary>
    public bool TryTake([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out Batch<TItem>? batch)
    {
        lock (_lock)
        {
            return TryTakeLocked(out batch);
        }
    }

    /// <summary>
    /// Waits for the next closed batch. Returns <see langword="null"/> once the batcher is
    /// completed and every batch has been taken.
    /// </summary>
    public ValueTask<Batch<TItem>?> TakeAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<Batch<TItem>?>(cancellationToken);
        }

        Task available;
        lock (_lock)
        {
            if (TryTakeLocked(out var batch))
            {
                return new ValueTask<Batch<TItem>?>(batch);
            }

            if (_completed)
            {
                return new ValueTask<Batch<TItem>?>((Batch<TItem>?)null);
            }

            available = (_batchAvailable ??= NewSignal()).Task;
        }

        return TakeAfterWaitAsync(available, cancellationToken);
    }

    /// <summary>Every batch until the batcher is completed and drained.</summary>
    public async IAsyncEnumerable<Batch<TItem>> ReadAllAsync([System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        while (await TakeAsync(cancellationToken) is { } batch)
        {
            yield return batch;
        }
    }

    /// <summary>Closes the open batch now (reason <see cref="BatchCloseReason.Flush"/>), if it holds anything.</summary>
    public void Flush()
    {
        lock (_lock)
        {
            if (_open is { Count: > 0 })
            {
                CloseLocked(BatchCloseReason.Flush, _time.GetTimestamp());
            }
        }
    }

    /// <summary>
    /// Flushes and stops accepting items, for graceful shutdown. The consumer still receives every
    /// closed batch, then <see cref="TakeAsync"/> returns <see langword="null"/>. Producers still
    /// waiting for room fail with <see cref="InvalidOperationException"/>.
    /// </summary>
    public void Complete()
    {
        lock (_lock)
        {
            if (_completed)
            {
                return;
            }

            if (_open is { Count: > 0 })
            {
                CloseLocked(BatchCloseReason.Flush, _time.GetTimestamp());
            }

            _completed = true;
            Signal(ref _batchAvailable);
            Signal(ref _roomAvailable);
        }
    }

    /// <summary>Completes the batcher and stops its timer.</summary>
    public void Dispose()
    {
        Complete();
        lock (_lock)
        {
            _disposed = true;
        }

        _timer.Dispose();
    }

    internal void Return(Batch<TItem> batch)
    {
        batch.Reset();
        lock (_lock)
        {
            // Enough to cover every batch that can exist at once; more would only hold memory.
            if (_pool.Count <= _maxPending + 2)
            {
                _pool.Push(batch);
            }
        }
    }

    private async ValueTask AddAfterWaitAsync(TItem item, int sizeBytes, Task room, CancellationToken cancellationToken)
    {
        while (true)
        {
            await room.WaitAsync(cancellationToken).ConfigureAwait(false);
            lock (_lock)
            {
                ThrowIfCompleted();
                if (_closed.Count < _maxPending)
                {
                    AddLocked(item, sizeBytes);
                    return;
                }

                room = WaitForRoomLocked();
            }
        }
    }

    private async ValueTask<Batch<TItem>?> TakeAfterWaitAsync(Task available, CancellationToken cancellationToken)
    {
        while (true)
        {
            await available.WaitAsync(cancellationToken).ConfigureAwait(false);
            lock (_lock)
            {
                if (TryTakeLocked(out var batch))
                {
                    return batch;
                }

                if (_completed)
                {
                    return null;
                }

                available = (_batchAvailable ??= NewSignal()).Task;
            }
        }
    }

    private void AddLocked(TItem item, int sizeBytes)
    {
        var now = _time.GetTimestamp();
        if (_open is { Count: > 0 } open)
        {
            // The timer may run late (a busy thread pool); the deadline holds regardless.
            if (_time.GetElapsedTime(open.FirstItemTimestamp, now) >= _maxDelay)
            {
                CloseLocked(BatchCloseReason.Delay, now);
            }
            else if (open.Bytes + sizeBytes > _maxBytes)
            {
                CloseLocked(BatchCloseReason.Bytes, now);
            }
        }

        var batch = _open ??= RentLocked();
        if (batch.Count == 0)
        {
            _timer.Change(_maxDelay, Timeout.InfiniteTimeSpan);
        }

        batch.Append(item, sizeBytes, now);
        if (batch.Count >= _maxMessages)
        {
            CloseLocked(BatchCloseReason.Count, now);
        }
        else if (batch.Bytes >= _maxBytes)
        {
            CloseLocked(BatchCloseReason.Bytes, now);
        }
    }

    private void OnDelayElapsed()
    {
        lock (_lock)
        {
            // The timer is re-armed for each new batch, so a call may belong to a batch that
            // already closed by size; it then finds a younger batch or none.
            if (_disposed || _open is not { Count: > 0 } open)
            {
                return;
            }

            var now = _time.GetTimestamp();
            var remaining = _maxDelay - _time.GetElapsedTime(open.FirstItemTimestamp, now);
            if (remaining > TimeSpan.Zero)
            {
                _timer.Change(remaining, Timeout.InfiniteTimeSpan);
                return;
            }

            CloseLocked(BatchCloseReason.Delay, now);
        }
    }

    private void CloseLocked(BatchCloseReason reason, long now)
    {
        var batch = _open!;
        _open = null;
        var age = _time.GetElapsedTime(batch.FirstItemTimestamp, now);
        batch.Close(reason, age);
        Statistics.RecordBatch(reason, batch.Count, batch.Bytes, age);
        _closed.Enqueue(batch);
        Signal(ref _batchAvailable);
    }

    private bool TryTakeLocked([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out Batch<TItem>? batch)
    {
        if (!_closed.TryDequeue(out batch))
        {
            return false;
        }

        batch.Rent(this);
        Signal(ref _roomAvailable);
        return true;
    }

    private Batch<TItem> RentLocked() => _pool.TryPop(out var batch) ? batch : new Batch<TItem>(_initialCapacity);

    private Task WaitForRoomLocked() => (_roomAvailable ??= NewSignal()).Task;

    private void ThrowIfCompleted()
    {
        if (_completed)
        {
            throw new InvalidOperationException("The batcher was completed and accepts no more items.");
        }
    }

    // Continuations run asynchronously so no waiter runs inside the lock of the thread that signals.
    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private static void Signal(ref TaskCompletionSource? signal)
    {
        var waiters = signal;
        signal = null;
        waiters?.TrySetResult();
    }
}
