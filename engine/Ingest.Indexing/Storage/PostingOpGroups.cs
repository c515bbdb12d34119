using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Ingest.Indexing.Storage;

/// <summary>
/// A batch's (field, term, entry) ops grouped by term, in the term dictionary's key order, with each term's additions
/// and removals in ascending entry order. The distinct terms are interned (<see cref="TermTable"/>) and sorted by their
/// bytes; the entries are bucketed per term by a counting sort and each bucket sorted as plain integers. Sorting every
/// op with a comparer of term bytes took most of a batch's term pass (the indexing benchmark's profile). The arrays are
/// kept and only grow, so steady batches allocate nothing.
/// </summary>
internal sealed class PostingOpGroups
{
    private readonly PostingOpComparer _comparer = new();
    private readonly TermTable _ids = new();
    private readonly List<PostingOp> _terms = []; // the distinct terms; Entry holds the term's id until sorted
    private int[] _rankOfOp = [];
    private int[] _rankOfId = [];
    private int[] _additionStarts = [];
    private int[] _removalStarts = [];
    private int[] _next = [];
    private long[] _additions = [];
    private long[] _removals = [];

    /// <summary>Bytes the kept arrays hold, for a batch memory budget.</summary>
    public long CapacityBytes =>
        _ids.CapacityBytes
        + ((long)_terms.Capacity * Unsafe.SizeOf<PostingOp>())
        + ((long)(_rankOfOp.Length + _rankOfId.Length + _additionStarts.Length + _removalStarts.Length + _next.Length) * sizeof(int))
        + ((long)(_additions.Length + _removals.Length) * sizeof(long));

    /// <summary>Distinct terms of the last <see cref="Group"/>.</summary>
    public int Count => _terms.Count;

    /// <summary>The field and term bytes of group <paramref name="rank"/> (its Entry means nothing).</summary>
    public PostingOp Term(int rank) => _terms[rank];

    /// <summary>Entries group <paramref name="rank"/>'s term gains, ascending.</summary>
    public ReadOnlySpan<long> Additions(int rank) => _additions.AsSpan(_additionStarts[rank], _additionStarts[rank + 1] - _additionStarts[rank]);

    /// <summary>Entries group <paramref name="rank"/>'s term loses, ascending.</summary>
    public ReadOnlySpan<long> Removals(int rank) => _removals.AsSpan(_removalStarts[rank], _removalStarts[rank + 1] - _removalStarts[rank]);

    /// <summary>
    /// Interns the terms of <paramref name="ops"/> only (no entries grouped): afterwards <see cref="Count"/> and
    /// <see cref="Term"/> are the distinct terms in key order, and <paramref name="rankOfOp"/>[i] is op i's rank. The
    /// ordinal columns use it after the term pass, so both share one dictionary and one list of terms.
    /// </summary>
    public void Intern(ReadOnlySpan<PostingOp> ops, byte[] arena, Span<uint> rankOfOp)
    {
        _comparer.Arena = arena;
        _ids.Clear();
        _terms.Clear();
        for (var i = 0; i < ops.Length; i++)
        {
            var id = _ids.Intern(ops[i].Field, arena, ops[i].Start, ops[i].Length);
            if (id == _terms.Count)
            {
                _terms.Add(ops[i] with { Entry = id });
            }

            rankOfOp[i] = (uint)id;
        }

        var terms = CollectionsMarshal.AsSpan(_terms);
        terms.Sort(_comparer);
        Grow(ref _rankOfId, terms.Length);
        for (var rank = 0; rank < terms.Length; rank++)
        {
            _rankOfId[(int)terms[rank].Entry] = rank;
        }

        for (var i = 0; i < ops.Length; i++)
        {
            rankOfOp[i] = (uint)_rankOfId[(int)rankOfOp[i]];
        }
    }

    /// <summary>Groups <paramref name="ops"/>, whose term bytes are in <paramref name="arena"/>.</summary>
    public void Group(ReadOnlySpan<PostingOp> ops, byte[] arena)
    {
        _comparer.Arena = arena;
        _ids.Clear();
        _terms.Clear();
        Grow(ref _rankOfOp, ops.Length);
        for (var i = 0; i < ops.Length; i++)
        {
            var id = _ids.Intern(ops[i].Field, arena, ops[i].Start, ops[i].Length);
            if (id == _terms.Count)
            {
                _terms.Add(ops[i] with { Entry = id });
            }

            _rankOfOp[i] = id;
        }

        var terms = CollectionsMarshal.AsSpan(_terms);
        terms.Sort(_comparer);
        Grow(ref _rankOfId, terms.Length);
        for (var rank = 0; rank < terms.Length; rank++)
        {
            _rankOfId[(int)terms[rank].Entry] = rank;
        }

        // Counting sort: per rank how many additions and removals, then where each rank's run starts.
        Grow(ref _additionStarts, terms.Length + 1);
        Grow(ref _removalStarts, terms.Length + 1);
        Array.Clear(_additionStarts, 0, terms.Length + 1);
        Array.Clear(_removalStarts, 0, terms.Length + 1);
        for (var i = 0; i < ops.Length; i++)
        {
            var rank = _rankOfOp[i] = _rankOfId[_rankOfOp[i]];
            (ops[i].IsAddition ? _additionStarts : _removalStarts)[rank + 1]++;
        }

        for (var rank = 0; rank < terms.Length; rank++)
        {
            _additionStarts[rank + 1] += _additionStarts[rank];
            _removalStarts[rank + 1] += _removalStarts[rank];
        }

        Scatter(ops, isAddition: true, _additionStarts, ref _additions);
        Scatter(ops, isAddition: false, _removalStarts, ref _removals);
    }

    /// <summary>Places each op's entry in its rank's run of <paramref name="entries"/>, then sorts each run.</summary>
    private void Scatter(ReadOnlySpan<PostingOp> ops, bool isAddition, int[] starts, ref long[] entries)
    {
        var groups = _terms.Count;
        Grow(ref entries, starts[groups]);
        Grow(ref _next, groups);
        Array.Copy(starts, _next, groups);
        for (var i = 0; i < ops.Length; i++)
        {
            if (ops[i].IsAddition == isAddition)
            {
                entries[_next[_rankOfOp[i]]++] = ops[i].Entry;
            }
        }

        for (var rank = 0; rank < groups; rank++)
        {
            var run = entries.AsSpan(starts[rank], starts[rank + 1] - starts[rank]);
            if (!IsAscending(run))
            {
                run.Sort();
            }
        }
    }

    // New documents get ascending entries in batch order, so most runs are sorted already.
    private static bool IsAscending(ReadOnlySpan<long> run)
    {
        for (var i = 1; i < run.Length; i++)
        {
            if (run[i] < run[i - 1])
            {
                return false;
            }
        }

        return true;
    }

    private static void Grow<T>(ref T[] array, int length)
    {
        if (array.Length < length)
        {
            array = new T[Math.Max(length, array.Length * 2)];
        }
    }
}
