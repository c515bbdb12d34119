using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Storage;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Reduce;

/// <summary>The write half of <see cref="ReduceMaintainer"/>: the batch's value keys in one ordered pass, then each changed group's record.</summary>
internal sealed partial class ReduceMaintainer
{
    /// <summary>Writes the batch's deltas in <paramref name="tx"/>: value keys in key order, then each changed group's record in key order.</summary>
    public void Apply(WriteTransaction tx)
    {
        if (_keys.Count == 0)
        {
            return;
        }

        var values = tx.CreateTree(ReduceLayout.Values);
        ApplyValueOps(values);
        var groups = tx.CreateTree(ReduceLayout.Groups);
        var count = _keys.Count;
        if (_order.Length < count)
        {
            _order = new int[Math.Max(count, _order.Length * 2)];
        }

        for (var i = 0; i < count; i++)
        {
            _order[i] = i;
        }

        var keys = _keys;
        _order.AsSpan(0, count).Sort((x, y) => keys[x].AsSpan().SequenceCompareTo(keys[y]));
        var cursor = values.CreateCursor();
        for (var i = 0; i < count; i++)
        {
            ApplyGroup(groups, cursor, _order[i]);
        }
    }

    private void ApplyValueOps(Tree values)
    {
        _comparer.Arena = _valueKeys.Bytes;
        var ops = CollectionsMarshal.AsSpan(_valueOps);
        ops.Sort(_comparer);
        Span<byte> number = stackalloc byte[8];
        for (var i = 0; i < ops.Length;)
        {
            var j = i;
            long delta = 0;
            for (; j < ops.Length && _comparer.Compare(ops[i], ops[j]) == 0; j++)
            {
                delta += ops[j].Sign;
            }

            var op = ops[i];
            i = j;
            if (delta == 0)
            {
                continue;
            }

            var key = _valueKeys.Bytes.AsSpan(op.Start, op.Length);
            var old = values.TryGet(key, out var stored) ? ReduceLayout.ReadInt64(stored) : 0;
            var now = old + delta;
            if (now < 0)
            {
                throw new InvalidDataException($"A map-reduce value count went below zero ({old} {delta:+#;-#}); the index is damaged: reset it.");
            }

            if (now == 0)
            {
                values.Delete(key);
            }
            else
            {
                BinaryPrimitives.WriteInt64LittleEndian(number, now);
                values.Put(key, number);
            }

            if ((old == 0) == (now == 0))
            {
                continue;
            }

            _valuesChanged[(op.Slot * _valueFieldCount) + op.ValueField] = true;
            for (var a = 0; a < _aggregateCount; a++)
            {
                if (_plan.AggregateKinds[a] == AggregateKind.CountDistinct && _plan.AggregateValueFields[a] == op.ValueField)
                {
                    _countDelta[(op.Slot * _aggregateCount) + a] += now > 0 ? 1 : -1;
                }
            }
        }
    }

    private bool Changed(int slot)
    {
        if (_documentDelta[slot] != 0 || _valuesChanged.AsSpan(slot * _valueFieldCount, _valueFieldCount).Contains(true))
        {
            return true;
        }

        var at = slot * _aggregateCount;
        for (var a = 0; a < _aggregateCount; a++)
        {
            if (_countDelta[at + a] != 0 || _sumDelta[at + a] != 0)
            {
                return true;
            }
        }

        return false;
    }

    private void ApplyGroup(Tree groups, TreeCursor cursor, int slot)
    {
        if (!Changed(slot))
        {
            return;
        }

        var key = _keys[slot];
        var record = _record.AsSpan();
        if (groups.TryGet(key, out var stored) && stored.Length == record.Length)
        {
            stored.CopyTo(record);
        }
        else
        {
            record.Clear();
        }

        var documents = ReduceLayout.ReadInt64(record) + _documentDelta[slot];
        if (documents < 0)
        {
            throw new InvalidDataException($"A map-reduce group's document count went below zero ({documents}); the index is damaged: reset it.");
        }

        if (documents == 0)
        {
            groups.Delete(key);
            return;
        }

        BinaryPrimitives.WriteInt64LittleEndian(record, documents);
        var at = slot * _aggregateCount;
        for (var a = 0; a < _aggregateCount; a++)
        {
            var cell = record.Slice(ReduceLayout.RecordHeaderSize + (ReduceLayout.AggregateSize * a), ReduceLayout.AggregateSize);
            var n = ReduceLayout.ReadInt64(cell) + _countDelta[at + a];
            BinaryPrimitives.WriteInt64LittleEndian(cell, n);
            var slotBytes = cell[8..];
            switch (_plan.AggregateKinds[a])
            {
                case AggregateKind.Sum or AggregateKind.Avg:
                    // Back to exactly 0 when the last value leaves, so rounding never outlives the values it came from.
                    var sum = n == 0 ? 0 : BinaryPrimitives.ReadDoubleLittleEndian(slotBytes) + _sumDelta[at + a];
                    BinaryPrimitives.WriteDoubleLittleEndian(slotBytes, sum);
                    break;
                case AggregateKind.Min or AggregateKind.Max:
                    var v = _plan.AggregateValueFields[a];
                    if (n == 0)
                    {
                        slotBytes.Clear();
                    }
                    else if (_valuesChanged[(slot * _valueFieldCount) + v])
                    {
                        ReadExtreme(cursor, v, key, _plan.AggregateKinds[a] == AggregateKind.Max, slotBytes);
                    }

                    break;
                default:
                    break;
            }
        }

        groups.Put(key, record);
    }

    /// <summary>The group's smallest (largest) value of value field <paramref name="valueField"/>: the first (last) key of its range.</summary>
    private void ReadExtreme(TreeCursor cursor, int valueField, ReadOnlySpan<byte> groupKey, bool last, Span<byte> destination)
    {
        var prefixLength = 2 + groupKey.Length;
        var prefix = _scratch.AsSpan(0, prefixLength);
        BinaryPrimitives.WriteUInt16BigEndian(prefix, (ushort)valueField);
        groupKey.CopyTo(prefix[2..]);
        bool found;
        if (!last)
        {
            found = cursor.Seek(prefix);
        }
        else
        {
            // Past the range: the prefix with its last byte below 0xFF raised by one (the prefix ends in a value's bytes or a 0x00 null tag).
            var end = prefixLength;
            while (end > 0 && prefix[end - 1] == 0xFF)
            {
                end--;
            }

            if (end == 0)
            {
                found = cursor.Last();
            }
            else
            {
                var successor = _scratch.AsSpan(prefixLength, end);
                prefix[..end].CopyTo(successor);
                successor[end - 1]++;
                found = cursor.Seek(successor) ? cursor.MovePrev() : cursor.Last();
            }
        }

        if (!found || !cursor.Key.StartsWith(prefix) || cursor.Key.Length != prefixLength + 8)
        {
            throw new InvalidDataException("A map-reduce group has values counted but none stored; the index is damaged: reset it.");
        }

        cursor.Key[prefixLength..].CopyTo(destination);
    }
}
