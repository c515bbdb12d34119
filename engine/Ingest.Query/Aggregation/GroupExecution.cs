using System.Buffers;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Aggregation;

/// <summary>
/// Computes the groups of a bound aggregation over a match set. Each key gives every match a list of ordinals (values
/// in ascending order, or time buckets counted from the first one matched); a group is the combination of one ordinal
/// per key, numbered in mixed radix (first key most significant), so ascending group numbers are ascending keys.
/// With few possible combinations the group number is the accumulator slot; otherwise a dictionary hands out slots.
/// Per match: one slot lookup per key combination, then per aggregate one pass over the matches; no allocation per match.
/// </summary>
internal sealed class GroupExecution : IDisposable
{
    /// <summary>Above this many possible key combinations, slots are handed out on demand instead of one per combination.</summary>
    private const long DenseSlotLimit = 1 << 20;

    /// <summary>Buckets of one <c>time()</c> key over the matches, at most (the Grafana layer widens its interval before).</summary>
    private const long MaxTimeBuckets = 100_000;

    private readonly AggregationQuery _query;
    private readonly MatchFieldValues _values;
    private readonly int _matchCount;
    private readonly int[][] _first;
    private readonly FieldTermGroups?[] _keyTerms;
    private readonly long[] _cardinality;
    private readonly long[] _radix;
    private readonly long[] _firstBucket;
    private readonly double[]?[] _numbers;
    private readonly long[]?[] _ticks;
    private readonly FieldTermGroups?[] _exists;
    private readonly Accumulators _accumulators;
    private Dictionary<long, int>? _slotOf;
    private long _combinations = 1;
    private int[] _rows = [];
    private int _rowCount;
    private int[] _slots = [];
    private long[] _extras = [];
    private int _extraCount;

    public GroupExecution(AggregationQuery query, Indexing.Storage.IndexReader reader, int matchCount)
    {
        _query = query;
        _matchCount = matchCount;
        _values = new MatchFieldValues(reader, matchCount);
        var keys = query.Keys.Count;
        _first = new int[keys][];
        _keyTerms = new FieldTermGroups?[keys];
        _cardinality = new long[keys];
        _radix = new long[keys];
        _firstBucket = new long[keys];
        var aggregates = query.Aggregates.Count;
        _numbers = new double[]?[aggregates];
        _ticks = new long[]?[aggregates];
        _exists = new FieldTermGroups?[aggregates];
        _accumulators = new Accumulators(query.Aggregates);
    }

    /// <summary>The column keys of <paramref name="field"/> for every match, read by the filter: the column is not read again.</summary>
    public void UseColumnKeys(int field, IndexFieldType type, ReadOnlySpan<long> columnKeys) => _values.UseColumnKeys(field, type, columnKeys);

    public void Aggregate(ReadOnlySpan<long> matches, CancellationToken cancellationToken)
    {
        for (var k = 0; k < _query.Keys.Count; k++)
        {
            ReadKey(k, matches, cancellationToken);
        }

        for (var k = _query.Keys.Count - 1; k >= 0; k--)
        {
            _radix[k] = _combinations;
            _combinations = _cardinality[k] == 0 || _combinations == 0 ? 0
                : _combinations > long.MaxValue / _cardinality[k]
                    ? throw new QueryException(_query.Keys[0].Position, "the group keys have more combinations than can be counted; group by fewer keys")
                    : _combinations * _cardinality[k];
        }

        ReadAggregateValues(matches, cancellationToken);
        _slots = ArrayPool<int>.Shared.Rent(Math.Max(1, _matchCount));
        var slots = _slots.AsSpan(0, _matchCount);
        if (_query.Keys.Count == 0)
        {
            // One row over the whole match set, also when it is empty.
            _accumulators.EnsureSlots(1);
            _accumulators.Used = 1;
            slots.Clear();
        }
        else if (_combinations > 0)
        {
            if (_combinations > DenseSlotLimit)
            {
                _slotOf = [];
            }
            else
            {
                _accumulators.EnsureSlots((int)_combinations);
                _accumulators.Used = (int)_combinations;
            }

            AssignSlots(slots, cancellationToken);
        }
        else
        {
            slots.Fill(-1);
        }

        Accumulate(slots);
        CollectRows();
    }

    public long WriteRows(System.Text.Json.Utf8JsonWriter writer)
    {
        var names = new System.Text.Json.JsonEncodedText[_query.Columns.Count];
        for (var c = 0; c < names.Length; c++)
        {
            names[c] = System.Text.Json.JsonEncodedText.Encode(_query.Columns[c].Name);
        }

        var end = Math.Min(_rowCount, _query.Offset + Math.Min(_query.Limit, int.MaxValue));
        for (var r = _query.Offset; r < end; r++)
        {
            var slot = _rows[r];
            var combination = _accumulators.Combination[slot];
            writer.WriteStartObject();
            for (var c = 0; c < names.Length; c++)
            {
                writer.WritePropertyName(names[c]);
                var source = _query.ColumnSources[c];
                if (source >= 0)
                {
                    WriteKey(writer, source, KeyOrdinal(combination, source));
                }
                else
                {
                    _accumulators.Write(writer, -1 - source, slot);
                }
            }

            writer.WriteEndObject();
        }

        return _rowCount;
    }

    public void Dispose()
    {
        _values.Dispose();
        for (var k = 0; k < _first.Length; k++)
        {
            if (_keyTerms[k] == null && _first[k] != null)
            {
                ArrayPool<int>.Shared.Return(_first[k]); // a time key's buckets; term keys' arrays belong to _values
            }
        }

        _accumulators.Dispose();
        if (_slots.Length > 0)
        {
            ArrayPool<int>.Shared.Return(_slots);
            _slots = [];
        }

        if (_extras.Length > 0)
        {
            ArrayPool<long>.Shared.Return(_extras);
            _extras = [];
        }

        if (_rows.Length > 0)
        {
            ArrayPool<int>.Shared.Return(_rows);
            _rows = [];
        }
    }

    private long KeyOrdinal(long combination, int key) => combination / _radix[key] % _cardinality[key];

    private void ReadKey(int k, ReadOnlySpan<long> matches, CancellationToken cancellationToken)
    {
        var key = _query.Keys[k];
        if (key.Interval is not { } interval)
        {
            var terms = _values.Terms(key.Field, key.Type, matches, cancellationToken);
            _keyTerms[k] = terms;
            _first[k] = terms.First;
            _cardinality[k] = terms.Cardinality;
            return;
        }

        var ticks = _values.Ticks(key.Field, matches);
        var buckets = ArrayPool<int>.Shared.Rent(Math.Max(1, _matchCount));
        _first[k] = buckets;

        // Buckets ascend with time, so the range's first and last buckets are those of its earliest and latest instants.
        long earliest = long.MaxValue, latest = long.MinValue;
        for (var p = 0; p < _matchCount; p++)
        {
            var t = ticks[p];
            if (t >= 0)
            {
                earliest = Math.Min(earliest, t);
                latest = Math.Max(latest, t);
            }
        }

        if (earliest > latest)
        {
            return; // no match has a time: no groups
        }

        var low = interval.BucketOf(earliest);
        var count = interval.BucketOf(latest) - low + 1;
        if (count > MaxTimeBuckets)
        {
            throw new QueryException(
                key.Position,
                $"time interval '{interval}' gives {count:N0} buckets over the matched range; at most {MaxTimeBuckets:N0}: use a wider interval or a narrower where");
        }

        _firstBucket[k] = low;
        _cardinality[k] = count;
        if (interval.IsFixedWidth)
        {
            FixedWidthBuckets(ticks.AsSpan(0, _matchCount), buckets.AsSpan(0, _matchCount), interval.FixedBucketStart(low), interval.BucketWidthTicks);
            return;
        }

        for (var p = 0; p < _matchCount; p++)
        {
            buckets[p] = ticks[p] >= 0 ? (int)(interval.BucketOf(ticks[p]) - low) : -1;
        }
    }

    /// <summary>
    /// Each instant's bucket counted from the one starting at <paramref name="start"/> (-1 for none), without a 64-bit
    /// division per match (tens of cycles each): the
    /// quotient by a multiplication with the width's reciprocal, exact after one correction step, since it is below
    /// <see cref="MaxTimeBuckets"/> and a double's relative error keeps the estimate within one of it.
    /// </summary>
    private static void FixedWidthBuckets(ReadOnlySpan<long> ticks, Span<int> buckets, long start, long width)
    {
        var reciprocal = 1.0 / width;
        for (var p = 0; p < ticks.Length; p++)
        {
            var t = ticks[p];
            if (t < 0)
            {
                buckets[p] = -1;
                continue;
            }

            var offset = t - start;
            var quotient = (long)(offset * reciprocal);
            var remainder = offset - (quotient * width);
            quotient += remainder < 0 ? -1 : remainder >= width ? 1 : 0;
            buckets[p] = (int)quotient;
        }
    }

    private void ReadAggregateValues(ReadOnlySpan<long> matches, CancellationToken cancellationToken)
    {
        for (var a = 0; a < _query.Aggregates.Count; a++)
        {
            var aggregate = _query.Aggregates[a];
            if (aggregate.Field < 0)
            {
                continue;
            }

            switch (aggregate.Type)
            {
                case IndexFieldType.Number:
                    _numbers[a] = _values.Numbers(aggregate.Field, matches);
                    break;
                case IndexFieldType.DateTime:
                    _ticks[a] = _values.Ticks(aggregate.Field, matches);
                    break;
                default:
                    _exists[a] = _values.Terms(aggregate.Field, aggregate.Type, matches, cancellationToken);
                    break;
            }
        }
    }

    /// <summary>
    /// Sets each match's slot (its first key combination; -1 when a key has no value) and records the further
    /// combinations of multi-valued matches as (slot, match) pairs.
    /// </summary>
    private void AssignSlots(Span<int> slots, CancellationToken cancellationToken)
    {
        var keyCount = _query.Keys.Count;
        if (keyCount == 1 && _slotOf == null && _keyTerms[0] is not { ExtraCount: > 0 })
        {
            // One key with one value per match (a time histogram): the slot is the key's ordinal, -1 where it has none.
            _first[0].AsSpan(0, slots.Length).CopyTo(slots);
            return;
        }

        Span<int> cursor = stackalloc int[keyCount];
        Span<int> start = stackalloc int[keyCount];
        Span<int> choices = stackalloc int[keyCount];
        Span<int> choice = stackalloc int[keyCount];

        // Counts matches and the combinations of multi-valued keys alike: one match with several arrays can have
        // millions of combinations (a cross of its values), so the token is looked at inside that loop too.
        var steps = 0;
        for (var p = 0; p < slots.Length; p++)
        {
            if ((++steps & Execution.CancellationCheck.Mask) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            long combination = 0;
            var several = false;
            var inGroup = true;
            for (var k = 0; k < keyCount; k++)
            {
                var ordinal = _first[k][p];
                if (ordinal < 0)
                {
                    inGroup = false;
                    break;
                }

                combination += ordinal * _radix[k];
                choices[k] = 1;
                if (_keyTerms[k] is { ExtraCount: > 0 } terms)
                {
                    var extra = terms.Extra;
                    while (cursor[k] < extra.Length && (extra[cursor[k]] >> 32) < p)
                    {
                        cursor[k]++;
                    }

                    start[k] = cursor[k];
                    while (cursor[k] < extra.Length && (extra[cursor[k]] >> 32) == p)
                    {
                        cursor[k]++;
                    }

                    choices[k] += cursor[k] - start[k];
                    several |= choices[k] > 1;
                }
            }

            slots[p] = inGroup ? SlotOf(combination) : -1;
            if (!several || !inGroup)
            {
                continue;
            }

            // A multi-valued key: the match joins one group per combination of its values (the first is in slots).
            choice.Clear();
            while (true)
            {
                if ((++steps & Execution.CancellationCheck.Mask) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                var next = keyCount - 1;
                while (next >= 0 && ++choice[next] == choices[next])
                {
                    choice[next--] = 0;
                }

                if (next < 0)
                {
                    break;
                }

                combination = 0;
                for (var k = 0; k < keyCount; k++)
                {
                    var ordinal = choice[k] == 0 ? _first[k][p] : (int)_keyTerms[k]!.Extra[start[k] + choice[k] - 1];
                    combination += ordinal * _radix[k];
                }

                AddExtra(((long)SlotOf(combination) << 32) | (uint)p);
            }
        }
    }

    private int SlotOf(long combination)
    {
        if (_slotOf == null)
        {
            return (int)combination;
        }

        if (!_slotOf.TryGetValue(combination, out var slot))
        {
            slot = _accumulators.Used;
            _accumulators.EnsureSlots(slot + 1);
            _accumulators.Used = slot + 1;
            _accumulators.Combination[slot] = combination;
            _slotOf.Add(combination, slot);
        }

        return slot;
    }

    /// <summary>Adds every match to its slots, one aggregate at a time (tight loops over the pooled arrays).</summary>
    private void Accumulate(ReadOnlySpan<int> slots)
    {
        var extras = _extras.AsSpan(0, _extraCount);
        _accumulators.AddCounts(slots, extras);
        for (var a = 0; a < _query.Aggregates.Count; a++)
        {
            if (_numbers[a] is { } numbers)
            {
                _accumulators.AddNumbers(a, slots, extras, numbers);
            }
            else if (_ticks[a] is { } ticks)
            {
                _accumulators.AddTicks(a, slots, extras, ticks);
            }
            else if (_exists[a] is { } exists)
            {
                _accumulators.AddPresence(a, slots, extras, exists.First);
            }
        }
    }

    private void AddExtra(long pair)
    {
        if (_extraCount == _extras.Length)
        {
            var grown = ArrayPool<long>.Shared.Rent(Math.Max(256, _extras.Length * 2));
            _extras.AsSpan(0, _extraCount).CopyTo(grown);
            if (_extras.Length > 0)
            {
                ArrayPool<long>.Shared.Return(_extras);
            }

            _extras = grown;
        }

        _extras[_extraCount++] = pair;
    }

    private void CollectRows()
    {
        var used = _accumulators.Used;
        _rows = ArrayPool<int>.Shared.Rent(Math.Max(1, used));
        _rowCount = 0;
        for (var slot = 0; slot < used; slot++)
        {
            if (_slotOf == null)
            {
                _accumulators.Combination[slot] = slot;
            }

            if (_accumulators.Count[slot] > 0 || _query.Keys.Count == 0)
            {
                _rows[_rowCount++] = slot;
            }
        }

        IComparer<int> order = _query.Orders.Count == 0
            ? new GroupRowComparer(_accumulators, [], this)
            : new GroupRowComparer(_accumulators, _query.Orders, this);
        if (_slotOf != null || _query.Orders.Count > 0)
        {
            Array.Sort(_rows, 0, _rowCount, order);
        }
    }

    private void WriteKey(System.Text.Json.Utf8JsonWriter writer, int k, long ordinal)
    {
        var key = _query.Keys[k];
        if (key.Interval is { } interval)
        {
            writer.WriteStringValue(new DateTime(interval.StartOf(_firstBucket[k] + ordinal), DateTimeKind.Utc));
            return;
        }

        AggregationJson.WriteTerm(writer, key.Type, _keyTerms[k]!.Term((int)ordinal));
    }

    /// <summary>The ordinal of key <paramref name="key"/> in a slot's combination (value order), for ordering rows.</summary>
    internal long OrdinalOf(int slot, int key) => KeyOrdinal(_accumulators.Combination[slot], key);
}
