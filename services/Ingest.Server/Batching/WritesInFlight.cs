using System.Diagnostics.CodeAnalysis;

namespace Ingest.Server.Batching;

/// <summary>
/// The writer's slots, and the writes in flight oldest first: which can finish, whether another
/// can start, and which write a new one queues behind. The writer's loop only.
/// </summary>
internal sealed class WritesInFlight
{
    // One batch commits while the next is built and queued behind it (the store merges queued
    // batches into one transaction): the commit's sync no longer stalls building the next batch.
    private const int MaxWritesInFlight = 3;

    private readonly Queue<WriteSlot> _flight = new(MaxWritesInFlight);
    private readonly Stack<WriteSlot> _free = new(MaxWritesInFlight);
    private WriteSlot? _newestStarted;

    // The newest batch that had something to write: while it is in flight, the next write
    // queues behind it, also when batches with nothing to write (every item dropped) came in
    // between. Once it is finished, it and everything before it is durable.
    private WriteSlot? _lastWrite;

    public WritesInFlight()
    {
        for (var i = 0; i < MaxWritesInFlight; i++)
        {
            _free.Push(new WriteSlot());
        }
    }

    public int Count => _flight.Count;

    /// <summary>The oldest write in flight; there must be one.</summary>
    public WriteSlot Oldest => _flight.Peek();

    /// <summary>
    /// Whether a slot is free and the newest write reached the store: a slot whose write never
    /// reached it (refused at once) cannot be a predecessor, so the next write waits until it has
    /// been retried and is durable.
    /// </summary>
    public bool CanStart
    {
        get
        {
            var newest = _flight.Count > 0 ? _newestStarted : null;
            return _free.Count > 0 && (newest is null || newest.Enqueued);
        }
    }

    /// <summary>The write a new one must queue behind, if it is still in flight.</summary>
    public WriteSlot? Predecessor => _lastWrite is { IsInFlight: true } ? _lastWrite : null;

    /// <summary>Takes the oldest write out if its task has finished; hand its slot back with <see cref="Return"/>.</summary>
    public bool TryTakeFinished([NotNullWhen(true)] out WriteSlot? slot)
    {
        if (_flight.TryPeek(out slot) && slot.Pending!.IsCompleted)
        {
            _flight.Dequeue();
            return true;
        }

        slot = null;
        return false;
    }

    /// <summary>Takes the oldest write out, finished or not.</summary>
    public bool TryTakeOldest([NotNullWhen(true)] out WriteSlot? slot) => _flight.TryDequeue(out slot);

    /// <summary>A free slot; <see cref="CanStart"/> must be true.</summary>
    public WriteSlot Rent() => _free.Pop();

    /// <summary>The slot's write was submitted: it is in flight, the newest.</summary>
    public void Started(WriteSlot slot)
    {
        _flight.Enqueue(slot);
        _newestStarted = slot;
        if (slot.Write.Count > 0)
        {
            _lastWrite = slot;
        }
    }

    public void Return(WriteSlot slot) => _free.Push(slot);

    /// <summary>Takes out every write in flight, unacknowledged; each slot's buffers go back once the store is done with its batch.</summary>
    public async Task AbandonAsync()
    {
        while (_flight.TryDequeue(out var abandoned))
        {
            await ((Task)abandoned.Pending!).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            abandoned.Release();
        }
    }
}
