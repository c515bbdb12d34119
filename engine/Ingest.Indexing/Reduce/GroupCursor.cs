using System.Buffers.Binary;
using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Reduce;

/// <summary>
/// Walks a map-reduce index's groups in group key order (from <see cref="IndexReader.ReadGroups"/>), one row per
/// group with at least one document. Keys and aggregates are in definition order. Valid while its reader is.
/// </summary>
public sealed class GroupCursor
{
    private readonly ReducePlan _plan;
    private readonly TreeCursor _cursor;
    private readonly int[] _keyStart;
    private readonly int[] _keyLength;
    private bool _started;

    internal GroupCursor(ReducePlan plan, Tree groups)
    {
        _plan = plan;
        _cursor = groups.CreateCursor();
        _keyStart = new int[plan.KeyCount];
        _keyLength = new int[plan.KeyCount];
    }

    /// <summary>The reduce this cursor reads.</summary>
    public ReduceDefinition Definition => _plan.Definition;

    /// <summary>Documents in the current group.</summary>
    public long DocumentCount => ReduceLayout.ReadInt64(_cursor.Value);

    /// <summary>The current group's key bytes (layout in ReduceLayout): a tie-breaker and a keyset position for paging.</summary>
    public ReadOnlySpan<byte> GroupKey => _cursor.Key;

    /// <summary>Moves to the next group (the first, the first time); false past the last.</summary>
    public bool MoveNext()
    {
        var moved = _started ? _cursor.MoveNext() : _cursor.First();
        _started = true;
        return moved && Decode();
    }

    /// <summary>
    /// Moves to the first group whose first key, a datetime or time bucket, is at or after <paramref name="atOrAfter"/>
    /// (UTC); false when there is none. Groups with a null first key come before every value and are passed over; later
    /// <see cref="MoveNext"/> calls go on from there, so a range of the first key is read without the groups before it.
    /// </summary>
    /// <exception cref="InvalidOperationException">The first group key is not a datetime field or time bucket.</exception>
    public bool SeekFirstKey(DateTime atOrAfter)
    {
        if (_plan.KeyCount == 0 || _plan.FieldTypes[_plan.KeyFields[0]] != IndexFieldType.DateTime)
        {
            throw new InvalidOperationException("Only a datetime or time bucket first group key can be sought.");
        }

        // | 0x01 | varint length 8 | the datetime term |: a datetime term is 8 bytes, so every non-null first key has this length prefix and sorts by its term.
        Span<byte> prefix = stackalloc byte[10];
        prefix[0] = 0x01;
        prefix[1] = 8;
        DateTimeTerm.Write(atOrAfter.ToUniversalTime().Ticks, prefix[2..]);
        _started = true;
        return _cursor.Seek(prefix) && Decode();
    }

    /// <summary>
    /// Group key <paramref name="key"/> of the current group: a string (keyword, folded as the index folds it), a
    /// double (number), a UTC <see cref="DateTime"/> (datetime, a bucket's start for a time key), a bool, or null
    /// when the group is the documents without a value.
    /// </summary>
    public object? GetKey(int key)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)key, (uint)_plan.KeyCount, nameof(key));
        if (_keyStart[key] < 0)
        {
            return null;
        }

        var bytes = _cursor.Key.Slice(_keyStart[key], _keyLength[key]);
        return _plan.FieldTypes[_plan.KeyFields[key]] switch
        {
            IndexFieldType.Number => NumberTerm.Read(bytes),
            IndexFieldType.DateTime => new DateTime(DateTimeTerm.Read(bytes), DateTimeKind.Utc),
            IndexFieldType.Bool => bytes.Length == 1 && bytes[0] != 0,
            _ => Encoding.UTF8.GetString(bytes),
        };
    }

    /// <summary>
    /// Group key <paramref name="key"/>'s term bytes in the current group (a keyword's UTF-8 bytes as the index folds
    /// them, one byte 0 or 1 for a bool, 8 bytes for a number or datetime); false when the group is the documents
    /// without a value. Lets a caller combine groups by their keys' bytes without decoding a value per group.
    /// </summary>
    public bool TryGetKeyTerm(int key, out ReadOnlySpan<byte> term)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)key, (uint)_plan.KeyCount, nameof(key));
        if (_keyStart[key] < 0)
        {
            term = default;
            return false;
        }

        term = _cursor.Key.Slice(_keyStart[key], _keyLength[key]);
        return true;
    }

    /// <summary>Datetime group key <paramref name="key"/> (a time bucket's start) of the current group as UTC ticks; false when null.</summary>
    /// <exception cref="InvalidOperationException">The key is not a datetime field or time bucket.</exception>
    public bool TryGetKeyTicks(int key, out long ticks)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)key, (uint)_plan.KeyCount, nameof(key));
        if (_plan.FieldTypes[_plan.KeyFields[key]] != IndexFieldType.DateTime)
        {
            throw new InvalidOperationException("Only a datetime or time bucket group key has ticks.");
        }

        if (_keyStart[key] < 0)
        {
            ticks = 0;
            return false;
        }

        ticks = DateTimeTerm.Read(_cursor.Key.Slice(_keyStart[key], _keyLength[key]));
        return true;
    }

    /// <summary>
    /// Aggregate <paramref name="aggregate"/> of the current group: a long for count and countDistinct; a double for
    /// sum and avg; for min and max a double or a UTC <see cref="DateTime"/> after the field's type. Null for sum,
    /// avg, min and max when no document of the group has a value.
    /// </summary>
    public object? GetAggregate(int aggregate)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)aggregate, (uint)_plan.AggregateCount, nameof(aggregate));
        var cell = _cursor.Value.Slice(ReduceLayout.RecordHeaderSize + (ReduceLayout.AggregateSize * aggregate), ReduceLayout.AggregateSize);
        var n = ReduceLayout.ReadInt64(cell);
        var kind = _plan.AggregateKinds[aggregate];
        if (kind is AggregateKind.Count or AggregateKind.CountDistinct)
        {
            return n;
        }

        if (n == 0)
        {
            return null;
        }

        var sum = BinaryPrimitives.ReadDoubleLittleEndian(cell[8..]);
        return kind switch
        {
            AggregateKind.Sum => sum,
            AggregateKind.Avg => sum / n,
            _ => _plan.FieldTypes[_plan.AggregateFields[aggregate]] == IndexFieldType.DateTime
                ? new DateTime(DateTimeTerm.Read(cell[8..]), DateTimeKind.Utc)
                : NumberTerm.Read(cell[8..]),
        };
    }

    /// <summary>
    /// Aggregate <paramref name="aggregate"/>'s n for the current group: documents with a value of its field (count of a
    /// field, sum, avg, min, max), documents (count()), distinct values (countDistinct). With <see cref="GetSum"/> it lets
    /// a query combine groups (an average of several groups is their sums over their counts).
    /// </summary>
    public long GetValueCount(int aggregate)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)aggregate, (uint)_plan.AggregateCount, nameof(aggregate));
        return ReduceLayout.ReadInt64(_cursor.Value[(ReduceLayout.RecordHeaderSize + (ReduceLayout.AggregateSize * aggregate))..]);
    }

    /// <summary>The sum a sum or avg aggregate keeps for the current group (0 when no document has a value).</summary>
    /// <exception cref="InvalidOperationException">The aggregate is not a sum or avg.</exception>
    public double GetSum(int aggregate)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)aggregate, (uint)_plan.AggregateCount, nameof(aggregate));
        if (_plan.AggregateKinds[aggregate] is not (AggregateKind.Sum or AggregateKind.Avg))
        {
            throw new InvalidOperationException("Only a sum or avg aggregate keeps a sum.");
        }

        return BinaryPrimitives.ReadDoubleLittleEndian(_cursor.Value[(ReduceLayout.RecordHeaderSize + (ReduceLayout.AggregateSize * aggregate) + 8)..]);
    }

    private bool Decode()
    {
        var key = _cursor.Key;
        var position = 0;
        for (var k = 0; k < _plan.KeyCount; k++)
        {
            if (key[position++] == 0)
            {
                _keyStart[k] = -1;
                continue;
            }

            var length = (int)VarInt.Read(key, ref position);
            _keyStart[k] = position;
            _keyLength[k] = length;
            position += length;
        }

        return true;
    }
}
