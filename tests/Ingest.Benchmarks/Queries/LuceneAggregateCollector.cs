using Lucene.Net.Index;
using Lucene.Net.Search;
using Lucene.Net.Util;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// The benchmark's aggregations for Lucene, over doc values as a Lucene user writes them: count and sum of Total per
/// Status ordinal, 5-minute buckets of OrderedAt with count and sum, or Status counts plus Total range counts.
/// </summary>
internal sealed class LuceneAggregateCollector : ICollector
{
    private readonly long[] _bucketCounts = new long[(int)((QueryWorkload.MonthEnd.Ticks - QueryWorkload.MonthStart.Ticks) / QueryWorkload.BucketTicks)];
    private readonly double[] _bucketSums;
    private readonly Dictionary<string, (long Count, double Sum)> _groups = [];
    private readonly long[] _rangeCounts = new long[QueryWorkload.TotalRanges.Length + 1];
    private readonly BytesRef _term = new();
    private long[] _ordCounts = [];
    private double[] _ordSums = [];
    private SortedDocValues? _status;
    private NumericDocValues? _total;
    private NumericDocValues? _orderedAt;
    private Mode _mode;

    public LuceneAggregateCollector()
    {
        _bucketSums = new double[_bucketCounts.Length];
    }

    public enum Mode
    {
        GroupByStatus,
        Histogram,
        Facets,
    }

    public bool AcceptsDocsOutOfOrder => true;

    public void Start(Mode mode)
    {
        _mode = mode;
        _groups.Clear();
        Array.Clear(_bucketCounts);
        Array.Clear(_bucketSums);
        Array.Clear(_rangeCounts);
    }

    public void SetScorer(Scorer scorer)
    {
    }

    public void SetNextReader(AtomicReaderContext context)
    {
        FoldSegment();
        var reader = context.AtomicReader;
        _status = reader.GetSortedDocValues("Status");
        _total = reader.GetNumericDocValues("Total");
        _orderedAt = reader.GetNumericDocValues("OrderedAt");
        var ords = _status?.ValueCount ?? 0;
        _ordCounts = new long[ords];
        _ordSums = new double[ords];
    }

    public void Collect(int doc)
    {
        var total = BitConverter.Int64BitsToDouble(_total!.Get(doc));
        switch (_mode)
        {
            case Mode.Histogram:
                var bucket = (int)((_orderedAt!.Get(doc) - QueryWorkload.MonthStart.Ticks) / QueryWorkload.BucketTicks);
                _bucketCounts[bucket]++;
                _bucketSums[bucket] += total;
                break;
            case Mode.GroupByStatus:
                var ord = _status!.GetOrd(doc);
                _ordCounts[ord]++;
                _ordSums[ord] += total;
                break;
            default:
                _ordCounts[_status!.GetOrd(doc)]++;
                var range = Array.BinarySearch(QueryWorkload.TotalRanges, total);
                _rangeCounts[range >= 0 ? range + 1 : ~range]++;
                break;
        }
    }

    /// <summary>Finishes the search and sums what a client would read, so no part of the work is skipped.</summary>
    public long Checksum()
    {
        FoldSegment();
        long checksum = 0;
        foreach (var (status, (count, sum)) in _groups)
        {
            checksum += status.Length + count + (long)sum;
        }

        for (var b = 0; b < _bucketCounts.Length; b++)
        {
            checksum += _bucketCounts[b] + (long)_bucketSums[b];
        }

        foreach (var count in _rangeCounts)
        {
            checksum += count;
        }

        return checksum;
    }

    /// <summary>Turns the segment's per-ordinal counts into per-status ones (ordinals are per segment).</summary>
    private void FoldSegment()
    {
        for (var ord = 0; ord < _ordCounts.Length; ord++)
        {
            if (_ordCounts[ord] == 0)
            {
                continue;
            }

            _status!.LookupOrd(ord, _term);
            var status = _term.Utf8ToString();
            _groups.TryGetValue(status, out var group);
            _groups[status] = (group.Count + _ordCounts[ord], group.Sum + _ordSums[ord]);
        }

        Array.Clear(_ordCounts);
    }
}
