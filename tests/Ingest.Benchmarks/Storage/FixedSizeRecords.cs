namespace Ingest.Benchmarks.Storage;

/// <summary>Count records of RecordSize bytes, back to back in one array: no per-key objects for the GC to trace.</summary>
internal sealed class FixedSizeRecords
{
    private readonly byte[] _buffer;

    public FixedSizeRecords(byte[] buffer, int recordSize)
    {
        ArgumentNullException.ThrowIfNull(buffer);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(recordSize);
        if (buffer.Length % recordSize != 0)
        {
            throw new ArgumentException($"The buffer length {buffer.Length} is not a multiple of {recordSize}.", nameof(buffer));
        }

        _buffer = buffer;
        RecordSize = recordSize;
        Count = buffer.Length / recordSize;
    }

    public int Count { get; }

    public int RecordSize { get; }

    public ReadOnlySpan<byte> this[int index] => _buffer.AsSpan(index * RecordSize, RecordSize);

    /// <summary>All records, back to back.</summary>
    public ReadOnlySpan<byte> AsSpan() => _buffer;

    public static FixedSizeRecords Random(Random random, int count, int recordSize)
    {
        ArgumentNullException.ThrowIfNull(random);
        var buffer = new byte[checked(count * recordSize)];
        random.NextBytes(buffer);
        return new FixedSizeRecords(buffer, recordSize);
    }

    /// <summary>The records at <paramref name="indexes"/>, in that order, copied.</summary>
    public FixedSizeRecords Select(ReadOnlySpan<int> indexes)
    {
        var buffer = new byte[checked(indexes.Length * RecordSize)];
        for (var i = 0; i < indexes.Length; i++)
        {
            this[indexes[i]].CopyTo(buffer.AsSpan(i * RecordSize));
        }

        return new FixedSizeRecords(buffer, RecordSize);
    }

    /// <summary>A copy sorted in ascending byte order (memcmp order, as LMDB and SQLite compare BLOB keys).</summary>
    public FixedSizeRecords Sorted()
    {
        var order = new int[Count];
        for (var i = 0; i < order.Length; i++)
        {
            order[i] = i;
        }

        Array.Sort(order, (a, b) => this[a].SequenceCompareTo(this[b]));
        return Select(order);
    }
}
