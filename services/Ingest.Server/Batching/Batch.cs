using System.Runtime.InteropServices;

namespace Ingest.Server.Batching;

/// <summary>
/// A closed batch handed to the consumer. Its item list is pooled by the batcher that made it:
/// dispose the batch when done with its items so the next batch reuses the list, and do not
/// touch the batch (or a span taken from it) afterwards.
/// </summary>
public sealed class Batch<TItem> : IDisposable
{
    private readonly List<TItem> _items;
    private Batcher<TItem>? _owner;

    internal Batch(int initialCapacity)
    {
        _items = new List<TItem>(initialCapacity);
    }

    /// <summary>The items in arrival order.</summary>
    public ReadOnlySpan<TItem> Items => CollectionsMarshal.AsSpan(_items);

    /// <summary>The items, to be replaced in place by the consumer (the batch writer runs transforms so).</summary>
    internal Span<TItem> ItemsToUpdate => CollectionsMarshal.AsSpan(_items);

    public TItem this[int index] => _items[index];

    public int Count => _items.Count;

    /// <summary>Sum of the sizes the producers declared for the items.</summary>
    public long Bytes { get; private set; }

    public BatchCloseReason CloseReason { get; private set; }

    /// <summary>How long the first item had waited when the batch closed.</summary>
    public TimeSpan FirstItemAge { get; private set; }

    /// <summary><see cref="TimeProvider.GetTimestamp"/> when the first item arrived.</summary>
    internal long FirstItemTimestamp { get; private set; }

    internal void Rent(Batcher<TItem> owner) => _owner = owner;

    internal void Append(TItem item, int sizeBytes, long timestamp)
    {
        if (_items.Count == 0)
        {
            FirstItemTimestamp = timestamp;
        }

        _items.Add(item);
        Bytes += sizeBytes;
    }

    internal void Close(BatchCloseReason reason, TimeSpan firstItemAge)
    {
        CloseReason = reason;
        FirstItemAge = firstItemAge;
    }

    internal void Reset()
    {
        // Clear drops references the items hold, but keeps the capacity for the next batch.
        _items.Clear();
        Bytes = 0;
        FirstItemAge = TimeSpan.Zero;
        FirstItemTimestamp = 0;
    }

    /// <summary>Returns the batch to its batcher for reuse. A second call does nothing.</summary>
    public void Dispose()
    {
        var owner = _owner;
        _owner = null;
        owner?.Return(this);
    }
}
