using System.Buffers;

namespace Ingest.Indexing.Terms;

/// <summary>
/// The terms extracted from documents, back to back in one pooled byte array, with the end offset of each: a batch
/// reuses one buffer for all its documents (<see cref="Clear"/> keeps the arrays), so extracting a value allocates
/// nothing once the arrays have grown to the batch's needs.
/// <code>
/// _bytes: | term 0 | term 1 |  | term 3 | ...     (term 2 is empty)
/// _ends:  [  e0,     e1,   e1,    e3,   ... ]     term i = _bytes[ends[i-1] .. ends[i]], ends[-1] = 0
/// _fields:[  f0,     f1,   f2,    f3,   ... ]     the field ordinal each term was added under (CurrentField)
/// </code>
/// Not thread-safe; one per indexing loop.
/// </summary>
internal sealed class TermBuffer : IDisposable
{
    private byte[] _bytes;
    private int _length;
    private int[] _ends;
    private int[] _fields;
    private int _count;
    private byte[] _scratch;

    public TermBuffer(int initialBytes = 4096, int initialTerms = 256)
    {
        _bytes = ArrayPool<byte>.Shared.Rent(initialBytes);
        _ends = ArrayPool<int>.Shared.Rent(initialTerms);
        _fields = ArrayPool<int>.Shared.Rent(initialTerms);
        _scratch = ArrayPool<byte>.Shared.Rent(256);
    }

    public int Count => _count;

    /// <summary>The field ordinal recorded with each term added from now on (a one-pass extraction interleaves fields).</summary>
    public int CurrentField { get; set; }

    /// <summary>Bytes the terms take, for a batch's memory budget.</summary>
    public int ByteCount => _length;

    /// <summary>Bytes the buffer holds (its arrays), for a batch's memory budget.</summary>
    public long CapacityBytes => _bytes.Length + ((long)(_ends.Length + _fields.Length) * sizeof(int)) + _scratch.Length;

    public ReadOnlySpan<byte> this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)index, (uint)_count, nameof(index));
            var start = index == 0 ? 0 : _ends[index - 1];
            return _bytes.AsSpan(start, _ends[index] - start);
        }
    }

    /// <summary>The <see cref="CurrentField"/> that term <paramref name="index"/> was added under.</summary>
    public int FieldOf(int index)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)index, (uint)_count, nameof(index));
        return _fields[index];
    }

    public void Add(ReadOnlySpan<byte> term)
    {
        term.CopyTo(GetSpan(term.Length));
        Advance(term.Length);
    }

    /// <summary>Room for a term of up to <paramref name="maxLength"/> bytes; <see cref="Advance"/> says how many were written.</summary>
    public Span<byte> GetSpan(int maxLength)
    {
        if (_bytes.Length - _length < maxLength)
        {
            _bytes = Grow(_bytes, _length, _length + maxLength);
        }

        return _bytes.AsSpan(_length, maxLength);
    }

    public void Advance(int length)
    {
        if (_count == _ends.Length)
        {
            _ends = Grow(_ends, _count, _count + 1);
        }

        if (_count == _fields.Length)
        {
            _fields = Grow(_fields, _count, _count + 1);
        }

        _length += length;
        _ends[_count] = _length;
        _fields[_count] = CurrentField;
        _count++;
    }

    /// <summary>Drops the terms from <paramref name="count"/> on (those of a value that turned out malformed).</summary>
    public void Truncate(int count)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan((uint)count, (uint)_count, nameof(count));
        _count = count;
        _length = count == 0 ? 0 : _ends[count - 1];
    }

    public void Clear() => Truncate(0);

    /// <summary>A reused work area of at least <paramref name="length"/> bytes (an escaped string is unescaped into it).</summary>
    public Span<byte> Scratch(int length)
    {
        if (_scratch.Length < length)
        {
            ArrayPool<byte>.Shared.Return(_scratch);
            _scratch = ArrayPool<byte>.Shared.Rent(length);
        }

        return _scratch.AsSpan(0, length);
    }

    public void Dispose()
    {
        ArrayPool<byte>.Shared.Return(_bytes);
        ArrayPool<int>.Shared.Return(_ends);
        ArrayPool<int>.Shared.Return(_fields);
        ArrayPool<byte>.Shared.Return(_scratch);
        _bytes = [];
        _ends = [];
        _fields = [];
        _scratch = [];
        _length = 0;
        _count = 0;
    }

    private static T[] Grow<T>(T[] array, int used, int needed)
    {
        var grown = ArrayPool<T>.Shared.Rent(Math.Max(needed, array.Length * 2));
        array.AsSpan(0, used).CopyTo(grown);
        ArrayPool<T>.Shared.Return(array);
        return grown;
    }
}
