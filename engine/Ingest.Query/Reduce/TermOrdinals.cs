using System.Text;

namespace Ingest.Query.Reduce;

/// <summary>
/// A small ordinal per distinct key term (a keyword's UTF-8 bytes) met while combining groups, so that a group is
/// folded in by its term's bytes without decoding a string or boxing a value: the string is decoded once per distinct
/// term, when a row is written. Ordinals order as the index orders terms (UTF-8 bytes, that is code points).
/// </summary>
internal sealed class TermOrdinals
{
    private readonly Dictionary<byte[], int> _ordinals = new(TermBytesComparer.Instance);
    private readonly Dictionary<byte[], int>.AlternateLookup<ReadOnlySpan<byte>> _lookup;
    private readonly List<byte[]> _terms = [];
    private readonly List<string?> _texts = [];

    public TermOrdinals() => _lookup = _ordinals.GetAlternateLookup<ReadOnlySpan<byte>>();

    /// <summary>The ordinal of <paramref name="term"/>, given it the first time it is met.</summary>
    public int Ordinal(ReadOnlySpan<byte> term)
    {
        if (_lookup.TryGetValue(term, out var ordinal))
        {
            return ordinal;
        }

        ordinal = _terms.Count;
        var bytes = term.ToArray();
        _ordinals.Add(bytes, ordinal);
        _terms.Add(bytes);
        _texts.Add(null);
        return ordinal;
    }

    /// <summary>The ordinal of <paramref name="text"/> (an edge row's key as query-time aggregation wrote it).</summary>
    public int Ordinal(string text)
    {
        var length = Encoding.UTF8.GetByteCount(text);
        var bytes = length <= 256 ? stackalloc byte[length] : new byte[length];
        Encoding.UTF8.GetBytes(text, bytes);
        var ordinal = Ordinal(bytes);
        if (_texts[ordinal] is null)
        {
            _texts[ordinal] = text;
        }

        return ordinal;
    }

    /// <summary>The term of <paramref name="ordinal"/> as a string, decoded once.</summary>
    public string Text(int ordinal) => _texts[ordinal] ??= Encoding.UTF8.GetString(_terms[ordinal]);

    /// <summary>Term order: UTF-8 bytes, which is code point order.</summary>
    public int Compare(int x, int y) => x == y ? 0 : _terms[x].AsSpan().SequenceCompareTo(_terms[y]);

    private sealed class TermBytesComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
    {
        public static readonly TermBytesComparer Instance = new();

        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(byte[] obj) => GetHashCode((ReadOnlySpan<byte>)obj);

        public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

        public int GetHashCode(ReadOnlySpan<byte> alternate)
        {
            var hash = new HashCode();
            hash.AddBytes(alternate);
            return hash.ToHashCode();
        }

        public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
    }
}
