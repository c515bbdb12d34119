using System.Numerics;

namespace Ingest.Server.Batching;

/// <summary>
/// Running figures about closed batches for <c>/stats</c>. Writers update with interlocked
/// operations only, so one instance may be shared by several batchers; readers see each
/// figure atomically, though not all figures from the same instant.
/// </summary>
/// <remarks>
/// Histograms have <see cref="BucketCount"/> power-of-two buckets. Bucket 0 holds values 0 and 1,
/// bucket i (i ≥ 1) holds [2^i, 2^(i+1)); the last bucket also takes everything larger.
/// Item counts are bucketed as they are, first-item ages in microseconds.
/// </remarks>
public sealed class BatchStatistics
{
    public const int BucketCount = 32;

    private readonly long[] _closedBy = new long[Enum.GetValues<BatchCloseReason>().Length];
    private readonly long[] _itemBuckets = new long[BucketCount];
    private readonly long[] _ageBuckets = new long[BucketCount];
    private readonly long[] _commitBuckets = new long[BucketCount];
    private long _batches;
    private long _items;
    private long _bytes;
    private long _minItems = long.MaxValue;
    private long _maxItems;
    private long _ageTicksTotal;
    private long _maxAgeTicks;
    private long _producerWaits;
    private long _commits;
    private long _maxCommitTicks;

    public long Batches => Volatile.Read(ref _batches);

    public long Items => Volatile.Read(ref _items);

    public long Bytes => Volatile.Read(ref _bytes);

    /// <summary>Smallest batch seen, in items; 0 before the first batch.</summary>
    public long MinItems => Batches == 0 ? 0 : Volatile.Read(ref _minItems);

    public long MaxItems => Volatile.Read(ref _maxItems);

    public double AverageItems => Average(Items, Batches);

    /// <summary>Mean age of a batch's first item when the batch closed: the batching latency.</summary>
    public TimeSpan AverageFirstItemAge
    {
        get
        {
            var batches = Batches;
            return batches == 0 ? TimeSpan.Zero : TimeSpan.FromTicks(Volatile.Read(ref _ageTicksTotal) / batches);
        }
    }

    public TimeSpan MaxFirstItemAge => TimeSpan.FromTicks(Volatile.Read(ref _maxAgeTicks));

    /// <summary>How often a producer had to wait because the consumer fell behind.</summary>
    public long ProducerWaits => Volatile.Read(ref _producerWaits);

    public long ClosedBy(BatchCloseReason reason) => Volatile.Read(ref _closedBy[(int)reason]);

    /// <summary>Batches per item-count bucket (see remarks).</summary>
    public long[] ItemsHistogram() => Copy(_itemBuckets);

    /// <summary>Batches per first-item-age bucket in microseconds (see remarks).</summary>
    public long[] FirstItemAgeHistogram() => Copy(_ageBuckets);

    /// <summary>
    /// Upper bound of the bucket holding the given percentile (0 &lt; p ≤ 100) of batch sizes,
    /// capped by the largest batch seen; 0 before the first batch.
    /// </summary>
    public long ItemsPercentile(double percentile) => Math.Min(Percentile(_itemBuckets, percentile), MaxItems);

    /// <summary>Like <see cref="ItemsPercentile"/>, for the first item's age when its batch closed.</summary>
    public TimeSpan FirstItemAgePercentile(double percentile) => MicrosPercentile(_ageBuckets, percentile, ref _maxAgeTicks);

    /// <summary>Batches written to the store (a batch written after retries counts once).</summary>
    public long Commits => Volatile.Read(ref _commits);

    public TimeSpan MaxCommitLatency => TimeSpan.FromTicks(Volatile.Read(ref _maxCommitTicks));

    /// <summary>Like <see cref="ItemsPercentile"/>, for how long writing a batch durably took.</summary>
    public TimeSpan CommitLatencyPercentile(double percentile) => MicrosPercentile(_commitBuckets, percentile, ref _maxCommitTicks);

    /// <summary>Records how long writing one batch durably took.</summary>
    public void RecordCommit(TimeSpan latency)
    {
        Interlocked.Increment(ref _commitBuckets[Bucket(latency.Ticks / TimeSpan.TicksPerMicrosecond)]);
        StoreMax(ref _maxCommitTicks, latency.Ticks);
        Interlocked.Increment(ref _commits);
    }

    internal void RecordProducerWait() => Interlocked.Increment(ref _producerWaits);

    internal void RecordBatch(BatchCloseReason reason, int items, long bytes, TimeSpan firstItemAge)
    {
        Interlocked.Increment(ref _closedBy[(int)reason]);
        Interlocked.Add(ref _items, items);
        Interlocked.Add(ref _bytes, bytes);
        Interlocked.Add(ref _ageTicksTotal, firstItemAge.Ticks);
        Interlocked.Increment(ref _itemBuckets[Bucket(items)]);
        Interlocked.Increment(ref _ageBuckets[Bucket(firstItemAge.Ticks / TimeSpan.TicksPerMicrosecond)]);
        StoreMin(ref _minItems, items);
        StoreMax(ref _maxItems, items);
        StoreMax(ref _maxAgeTicks, firstItemAge.Ticks);

        // Last, so a reader that sees the batch counted sees its figures too.
        Interlocked.Increment(ref _batches);
    }

    private static TimeSpan MicrosPercentile(long[] buckets, double percentile, ref long maxTicks)
    {
        var micros = Percentile(buckets, percentile);
        var ticks = micros > long.MaxValue / TimeSpan.TicksPerMicrosecond ? long.MaxValue : micros * TimeSpan.TicksPerMicrosecond;
        return TimeSpan.FromTicks(Math.Min(ticks, Volatile.Read(ref maxTicks)));
    }

    private static int Bucket(long value) =>
        value <= 1 ? 0 : Math.Min(BitOperations.Log2((ulong)value), BucketCount - 1);

    private static long Percentile(long[] buckets, double percentile)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(percentile);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(percentile, 100);
        var counts = Copy(buckets);
        var total = counts.Sum();
        if (total == 0)
        {
            return 0;
        }

        var rank = (long)Math.Ceiling(total * percentile / 100);
        long seen = 0;
        for (var i = 0; i < counts.Length; i++)
        {
            seen += counts[i];
            if (seen >= rank)
            {
                return i == BucketCount - 1 ? long.MaxValue : (2L << i) - 1;
            }
        }

        return long.MaxValue;
    }

    private static long[] Copy(long[] buckets)
    {
        var copy = new long[buckets.Length];
        for (var i = 0; i < buckets.Length; i++)
        {
            copy[i] = Volatile.Read(ref buckets[i]);
        }

        return copy;
    }

    private static double Average(long total, long count) => count == 0 ? 0 : (double)total / count;

    private static void StoreMin(ref long location, long value)
    {
        var current = Volatile.Read(ref location);
        while (value < current)
        {
            var seen = Interlocked.CompareExchange(ref location, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    private static void StoreMax(ref long location, long value)
    {
        var current = Volatile.Read(ref location);
        while (value > current)
        {
            var seen = Interlocked.CompareExchange(ref location, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
