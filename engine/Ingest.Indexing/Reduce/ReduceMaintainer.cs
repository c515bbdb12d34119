using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;
using Ingest.Storage;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Reduce;

/// <summary>
/// Keeps a map-reduce index's groups (layout in <see cref="ReduceLayout"/>) inside the map index's batch: for each
/// changed document the old version's contribution is subtracted and the new one's added into per-group deltas kept
/// in memory; <see cref="Apply"/> then writes the value keys in one ordered pass and each touched group's record once.
/// count, sum and avg are algebraic (a delta is enough); min, max and countDistinct read the group's value keys, and
/// only when a value appeared in or left the group. Work buffers are kept across batches; the batch allocates one key
/// array per group it touches, nothing per document. Not thread-safe (the indexing loop's).
/// </summary>
internal sealed partial class ReduceMaintainer
{
    private readonly ReducePlan _plan;
    private readonly int _aggregateCount;
    private readonly int _valueFieldCount;
    private readonly Dictionary<byte[], int> _slots = new(GroupKeyComparer.Instance);
    private readonly Dictionary<byte[], int>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly List<byte[]> _keys = [];
    private readonly ByteArena _valueKeys = new();
    private readonly List<ValueOp> _valueOps = [];
    private readonly ValueOpComparer _comparer = new();
    private readonly int[] _rangeStart;
    private readonly int[] _rangeEnd;
    private readonly int[] _odometer;
    private readonly int[] _choices;
    private readonly byte[] _groupKey = new byte[ReduceLayout.GroupKeyLimit + 64];
    private readonly byte[] _scratch = new byte[Tree.MaxKeySize];
    private readonly byte[] _record;
    private readonly byte[] _bucket = new byte[8];
    private long[] _documentDelta = new long[64];
    private long[] _countDelta;
    private double[] _sumDelta;
    private bool[] _valuesChanged;
    private int[] _order = new int[64];

    public ReduceMaintainer(ReducePlan plan)
    {
        _plan = plan;
        _aggregateCount = plan.AggregateCount;
        _valueFieldCount = plan.ValueFields.Length;
        _lookup = _slots.GetAlternateLookup<ReadOnlySpan<byte>>();
        _rangeStart = new int[plan.FieldCount];
        _rangeEnd = new int[plan.FieldCount];
        _odometer = new int[plan.KeyCount];
        _choices = new int[plan.KeyCount];
        _record = new byte[ReduceLayout.RecordSize(_aggregateCount)];
        _countDelta = new long[64 * _aggregateCount];
        _sumDelta = new double[64 * _aggregateCount];
        _valuesChanged = new bool[64 * Math.Max(1, _valueFieldCount)];
    }

    public ReducePlan Plan => _plan;

    /// <summary>Groups the current batch has touched so far.</summary>
    public int TouchedGroups => _keys.Count;

    /// <summary>Bytes the work buffers hold (they grow with the largest batch).</summary>
    public long WorkMemoryBytes =>
        _valueKeys.Bytes.Length + (_valueOps.Capacity * 20L) + (_documentDelta.Length * 8L) + (_countDelta.Length * 16L)
        + _valuesChanged.Length + (_keys.Count * 64L);

    /// <summary>Forgets the deltas (start of a batch, or after a failed one).</summary>
    public void Clear()
    {
        _slots.Clear();
        _keys.Clear();
        _valueKeys.Clear();
        _valueOps.Clear();
    }

    /// <summary>
    /// Adds (<paramref name="sign"/> +1) or subtracts (-1) one document version: <paramref name="terms"/> its terms
    /// sorted by field and term and distinct (bytes in <paramref name="arena"/>), <paramref name="first"/> 8 bytes per
    /// field holding each column field's first value where <paramref name="hasFirst"/> says it has one.
    /// </summary>
    public void Contribute(ReadOnlySpan<PostingOp> terms, byte[] arena, ReadOnlySpan<byte> first, ReadOnlySpan<bool> hasFirst, int sign)
    {
        _rangeStart.AsSpan().Fill(-1);
        for (var i = 0; i < terms.Length; i++)
        {
            var f = terms[i].Field;
            if (_rangeStart[f] < 0)
            {
                _rangeStart[f] = i;
            }

            _rangeEnd[f] = i + 1;
        }

        for (var k = 0; k < _plan.KeyCount; k++)
        {
            var f = _plan.KeyFields[k];
            _choices[k] = _plan.KeySources[k] == GroupKeySource.Terms && _rangeStart[f] >= 0 ? _rangeEnd[f] - _rangeStart[f] : 1;
            _odometer[k] = 0;
        }

        // One group per combination of the keys' values (a document with two tags is in both tags' groups).
        while (true)
        {
            var keyLength = EncodeGroupKey(terms, arena, first, hasFirst);
            ContributeToGroup(_groupKey.AsSpan(0, keyLength), terms, arena, first, hasFirst, sign);
            var k = _plan.KeyCount - 1;
            for (; k >= 0; k--)
            {
                if (++_odometer[k] < _choices[k])
                {
                    break;
                }

                _odometer[k] = 0;
            }

            if (k < 0)
            {
                return;
            }
        }
    }

    private int EncodeGroupKey(ReadOnlySpan<PostingOp> terms, byte[] arena, ReadOnlySpan<byte> first, ReadOnlySpan<bool> hasFirst)
    {
        var length = 0;
        var bucket = _bucket.AsSpan();
        for (var k = 0; k < _plan.KeyCount; k++)
        {
            var f = _plan.KeyFields[k];
            ReadOnlySpan<byte> value;
            var present = true;
            switch (_plan.KeySources[k])
            {
                case GroupKeySource.Terms:
                    present = _rangeStart[f] >= 0;
                    var op = present ? terms[_rangeStart[f] + _odometer[k]] : default;
                    value = present ? Cut(arena.AsSpan(op.Start, op.Length), _plan.KeyValueLimit) : default;
                    break;
                case GroupKeySource.First:
                    present = hasFirst[f];
                    value = first.Slice(8 * f, 8);
                    break;
                default:
                    present = hasFirst[f];
                    DateTimeTerm.Write(_plan.KeyBuckets[k].Start(DateTimeTerm.Read(first.Slice(8 * f, 8))), bucket);
                    value = bucket;
                    break;
            }

            if (!present)
            {
                _groupKey[length++] = 0;
                continue;
            }

            _groupKey[length++] = 1;
            length += VarInt.Write((ulong)value.Length, _groupKey.AsSpan(length));
            value.CopyTo(_groupKey.AsSpan(length));
            length += value.Length;
        }

        return length;
    }

    /// <summary>Cuts a UTF-8 value at <paramref name="limit"/> bytes on a character boundary.</summary>
    private static ReadOnlySpan<byte> Cut(ReadOnlySpan<byte> value, int limit)
    {
        if (value.Length <= limit)
        {
            return value;
        }

        var end = limit;
        while (end > 0 && (value[end] & 0xC0) == 0x80)
        {
            end--;
        }

        return value[..end];
    }

    private void ContributeToGroup(ReadOnlySpan<byte> groupKey, ReadOnlySpan<PostingOp> terms, byte[] arena, ReadOnlySpan<byte> first, ReadOnlySpan<bool> hasFirst, int sign)
    {
        var slot = SlotOf(groupKey);
        _documentDelta[slot] += sign;
        var at = slot * _aggregateCount;
        for (var a = 0; a < _aggregateCount; a++)
        {
            var f = _plan.AggregateFields[a];
            switch (_plan.AggregateKinds[a])
            {
                case AggregateKind.Count:
                    if (f < 0 || HasValue(f, hasFirst))
                    {
                        _countDelta[at + a] += sign;
                    }

                    break;
                case AggregateKind.Sum or AggregateKind.Avg:
                    if (hasFirst[f])
                    {
                        _countDelta[at + a] += sign;
                        _sumDelta[at + a] += sign * NumberTerm.Read(first.Slice(8 * f, 8));
                    }

                    break;
                case AggregateKind.Min or AggregateKind.Max:
                    if (hasFirst[f])
                    {
                        _countDelta[at + a] += sign;
                    }

                    break;
                default:
                    break; // countDistinct moves when a value key appears or goes (ApplyValueOps)
            }
        }

        for (var v = 0; v < _valueFieldCount; v++)
        {
            var f = _plan.ValueFields[v];
            if (_plan.IsColumn[f])
            {
                if (hasFirst[f])
                {
                    AddValueOp(v, groupKey, first.Slice(8 * f, 8), sign, slot);
                }
            }
            else if (_rangeStart[f] >= 0)
            {
                for (var t = _rangeStart[f]; t < _rangeEnd[f]; t++)
                {
                    AddValueOp(v, groupKey, arena.AsSpan(terms[t].Start, terms[t].Length), sign, slot);
                }
            }
        }
    }

    private bool HasValue(int field, ReadOnlySpan<bool> hasFirst) => _plan.IsColumn[field] ? hasFirst[field] : _rangeStart[field] >= 0;

    private int SlotOf(ReadOnlySpan<byte> groupKey)
    {
        if (_lookup.TryGetValue(groupKey, out var slot))
        {
            return slot;
        }

        slot = _keys.Count;
        var key = groupKey.ToArray();
        _slots.Add(key, slot);
        _keys.Add(key);
        if (slot == _documentDelta.Length)
        {
            Array.Resize(ref _documentDelta, slot * 2);
            Array.Resize(ref _countDelta, slot * 2 * _aggregateCount);
            Array.Resize(ref _sumDelta, slot * 2 * _aggregateCount);
            Array.Resize(ref _valuesChanged, slot * 2 * Math.Max(1, _valueFieldCount));
        }

        _documentDelta[slot] = 0;
        _countDelta.AsSpan(slot * _aggregateCount, _aggregateCount).Clear();
        _sumDelta.AsSpan(slot * _aggregateCount, _aggregateCount).Clear();
        _valuesChanged.AsSpan(slot * _valueFieldCount, _valueFieldCount).Clear();
        return slot;
    }

    private void AddValueOp(int valueField, ReadOnlySpan<byte> groupKey, ReadOnlySpan<byte> value, int sign, int slot)
    {
        var length = 2 + groupKey.Length + value.Length;
        var bytes = _valueKeys.Reserve(length);
        BinaryPrimitives.WriteUInt16BigEndian(bytes, (ushort)valueField);
        groupKey.CopyTo(bytes[2..]);
        value.CopyTo(bytes[(2 + groupKey.Length)..]);
        _valueOps.Add(new ValueOp(_valueKeys.Length, length, sign, slot, valueField));
        _valueKeys.Advance(length);
    }
}
