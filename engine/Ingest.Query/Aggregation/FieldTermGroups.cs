using System.Buffers;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Aggregation;

/// <summary>
/// The distinct values each matched document holds in one field, found by walking the field's terms in order and
/// looking their entries up in the match set: ordinal i is the i-th term (in value order) that any match holds.
/// <code>
/// First[p]   the smallest ordinal of match p, -1 when it has no value
/// Extra      (p &lt;&lt; 32 | ordinal) for each further value of a multi-valued match, sorted: by p, then ordinal
/// Term(i)    ordinal i's encoded term, for writing it out
/// </code>
/// Arrays are pooled; dispose to return them.
/// </summary>
internal sealed partial class FieldTermGroups : IDisposable
{
    private int[] _first;
    private long[] _extra = [];
    private byte[] _terms = [];
    private int[] _termEnds = [];
    private int _termBytes;

    private FieldTermGroups(int matchCount)
    {
        _first = ArrayPool<int>.Shared.Rent(Math.Max(1, matchCount));
        _first.AsSpan(0, matchCount).Fill(-1);
    }

    public int[] First => _first;

    public ReadOnlySpan<long> Extra => _extra.AsSpan(0, ExtraCount);

    public int ExtraCount { get; private set; }

    /// <summary>Distinct values held by the matches.</summary>
    public int Cardinality { get; private set; }

    public static FieldTermGroups Build(IndexReader reader, int field, scoped ref MatchPositions positions, int matchCount, CancellationToken cancellationToken)
    {
        var groups = new FieldTermGroups(matchCount);
        try
        {
            var terms = reader.EnumerateTerms(field);
            while (terms.MoveNext())
            {
                cancellationToken.ThrowIfCancellationRequested();

                // Each term's lookups start afresh on a copy: the copy's search position is its own, the pooled arrays shared.
                var sink = new TermEntries(groups, positions, groups.Cardinality);
                terms.VisitEntries(ref sink);
                if (sink.Used)
                {
                    groups.AddTerm(terms.Term);
                }
            }

            groups._extra.AsSpan(0, groups.ExtraCount).Sort();
            return groups;
        }
        catch
        {
            groups.Dispose();
            throw;
        }
    }

    public ReadOnlySpan<byte> Term(int ordinal) =>
        _terms.AsSpan(ordinal == 0 ? 0 : _termEnds[ordinal - 1], _termEnds[ordinal] - (ordinal == 0 ? 0 : _termEnds[ordinal - 1]));

    public void Dispose()
    {
        Return(ref _first);
        Return(ref _extra);
        Return(ref _terms);
        Return(ref _termEnds);
    }

    private static void Return<T>(ref T[] array)
    {
        if (array.Length > 0)
        {
            ArrayPool<T>.Shared.Return(array);
        }

        array = [];
    }

    private static void EnsureRoom<T>(ref T[] array, int used, int needed)
    {
        if (array.Length >= needed)
        {
            return;
        }

        var grown = ArrayPool<T>.Shared.Rent(Math.Max(needed, Math.Max(256, array.Length * 2)));
        array.AsSpan(0, used).CopyTo(grown);
        Return(ref array);
        array = grown;
    }

    /// <summary>Gives the matches among one term's entries that term's ordinal (their first, or a further value).</summary>
    private ref struct TermEntries(FieldTermGroups groups, MatchPositions positions, int ordinal) : IEntrySink
    {
        private MatchPositions _positions = positions;

        public bool Used { get; private set; }

        public void Add(ReadOnlySpan<long> entries)
        {
            var first = groups._first;
            foreach (var entry in entries)
            {
                var p = _positions.Of(entry);
                if (p < 0)
                {
                    continue;
                }

                Used = true;
                if (first[p] < 0)
                {
                    first[p] = ordinal;
                }
                else
                {
                    groups.AddExtra(((long)p << 32) | (uint)ordinal);
                }
            }
        }
    }

    private void AddExtra(long pair)
    {
        EnsureRoom(ref _extra, ExtraCount, ExtraCount + 1);
        _extra[ExtraCount++] = pair;
    }

    private void AddTerm(ReadOnlySpan<byte> term)
    {
        EnsureRoom(ref _terms, _termBytes, _termBytes + term.Length);
        EnsureRoom(ref _termEnds, Cardinality, Cardinality + 1);
        term.CopyTo(_terms.AsSpan(_termBytes));
        _termBytes += term.Length;
        _termEnds[Cardinality++] = _termBytes;
    }
}
