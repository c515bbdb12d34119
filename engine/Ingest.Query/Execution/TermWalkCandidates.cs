using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// <c>order by F [desc] limit k</c> on one number, datetime, keyword or bool field: the field's terms walked in order
/// (<see cref="IndexReader.WalkTerms"/>), either way, each term's entries ascending (the tie order), stopping once a
/// batch (offset + limit + 1 first, then as <see cref="SortedCandidates"/> does) is full. An entry counts under the
/// term that is its sort key (for a field whose path visits arrays: its column value, or its smallest keyword); with a
/// filter it must be a match. Batches resume after the last candidate's (term, entry), as a continuation does.
/// Entries without a value come last: once the terms run out, or when the walk has met more non-matches than ordering
/// the matches would cost (a filter that keeps entries far from the walk's start), the rest come from a
/// <see cref="SortedCandidates"/> pass resuming after the last key walked.
/// </summary>
internal sealed class TermWalkCandidates : EntryCandidates
{
    private readonly IndexReader _reader;
    private readonly SortKeySpec _spec;
    private readonly List<long> _matches;
    private readonly bool _filtered;
    private readonly int _nextBatch;
    private readonly long _budget;
    private readonly CancellationToken _ct;
    private readonly List<long> _batch = EntryListPool.Rent();
    private readonly byte[] _anchorTerm = ArrayPool<byte>.Shared.Rent(1024);
    private int _anchorLength;
    private long _anchorEntry;
    private bool _hasAnchor;
    private bool _anchorMissing;
    private int _capacity;
    private int _position;
    private long _visited;
    private bool _walkDone;
    private bool _budgetSpent;
    private bool _started;
    private SortKeySource? _restKeys;
    private SortedCandidates? _rest;

    /// <summary>
    /// <paramref name="matches"/>: the filter's matches, or (unfiltered) an empty list the rest pass fills with every
    /// entry if it is needed. <paramref name="resume"/> and <paramref name="afterEntry"/>: a continuation's key and entry.
    /// </summary>
    public TermWalkCandidates(
        IndexReader reader, SortKeySpec spec, List<long> matches, bool filtered, ContinuationKey? resume, long? afterEntry,
        int firstBatch, int nextBatch, CancellationToken ct)
    {
        _reader = reader;
        _spec = spec;
        _matches = matches;
        _filtered = filtered;
        _capacity = Math.Max(1, firstBatch);
        _nextBatch = nextBatch;
        _ct = ct;
        _budget = Budget(spec, filtered ? matches.Count : reader.EntryCount, reader.EntryCount);
        if (resume != null && afterEntry is { } after)
        {
            _hasAnchor = true;
            _anchorEntry = after;
            _anchorMissing = resume.Missing;
            if (!resume.Missing)
            {
                SetAnchorTerm(spec.Kind == SortKeyKind.Column ? ColumnTerm(resume.Value, stackalloc byte[8]) : resume.Bytes);
            }
        }
    }

    public override bool MayHaveMore => _rest?.MayHaveMore ?? true; // valueless entries may follow the last term

    /// <summary>
    /// Whether walking terms beats ordering every match: a walk meets about k * entries / matches postings before it
    /// has k matches (each a cursor step and a binary search, some 60 ns), a top-k pass reads each match's key (some
    /// 10 ns, and keyword order ranks every entry of the index first), so the walk wins once matches² >= 8 k entries.
    /// </summary>
    public static bool Fits(SortKeySpec spec, long matches, long entries, long k) =>
        spec.Kind == SortKeyKind.TermRank || (double)matches * matches >= 8.0 * k * entries;

    public override bool TryNext(out long entry)
    {
        while (true)
        {
            if (_rest != null)
            {
                return _rest.TryNext(out entry);
            }

            if (_position < _batch.Count)
            {
                entry = _batch[_position++];
                return true;
            }

            if (_walkDone)
            {
                StartRest();
                continue;
            }

            Fill();
        }
    }

    public override void Dispose()
    {
        _rest?.Dispose();
        _restKeys?.Dispose();
        EntryListPool.Return(_batch);
        ArrayPool<byte>.Shared.Return(_anchorTerm);
    }

    /// <summary>
    /// Postings a walk may meet before it gives up for a top-k pass: eight per match (what the pass would cost), plus a
    /// quarter of the index for keyword order, whose pass ranks every entry first.
    /// </summary>
    private static long Budget(SortKeySpec spec, long matches, long entries) =>
        1024 + (8 * matches) + (spec.Kind == SortKeyKind.TermRank ? entries / 4 : 0);

    private static ReadOnlySpan<byte> ColumnTerm(ulong value, Span<byte> term)
    {
        BinaryPrimitives.WriteUInt64BigEndian(term, value);
        return term;
    }

    private void SetAnchorTerm(ReadOnlySpan<byte> term)
    {
        term.CopyTo(_anchorTerm);
        _anchorLength = term.Length;
    }

    private void Fill()
    {
        if (_started)
        {
            _capacity = _nextBatch;
        }

        _started = true;
        _batch.Clear();
        _position = 0;
        if (_anchorMissing)
        {
            // The last page ended among the entries without a value: only those can follow.
            _walkDone = true;
            return;
        }

        var sink = new Sink(this);
        _reader.WalkTerms(_spec.Field, _anchorTerm.AsSpan(0, _anchorLength), _hasAnchor, _spec.Descending, _anchorEntry, ref sink);
        if (_batch.Count < _capacity)
        {
            // The terms ran out, or the walk met too many non-matches: what is left comes from a pass over the matches.
            _walkDone = true;
        }
    }

    /// <summary>The entries after the last one walked, by a top-k pass over the matches (every entry when unfiltered).</summary>
    private void StartRest()
    {
        if (!_filtered && _matches.Count == 0)
        {
            _reader.AllEntries(_matches);
        }

        ContinuationKey? anchor;
        long after;
        if (_anchorMissing || !_budgetSpent)
        {
            // The terms ran out (every valued entry was walked), or the previous page ended among the valueless entries:
            // only those are left, after the anchor's entry (Missing sorts after every value).
            anchor = new ContinuationKey(true, 0, []);
            after = _anchorMissing ? _anchorEntry : 0;
        }
        else if (_hasAnchor)
        {
            var term = _anchorTerm.AsSpan(0, _anchorLength);
            anchor = _spec.Kind == SortKeyKind.Column
                ? new ContinuationKey(false, BinaryPrimitives.ReadUInt64BigEndian(term), [])
                : new ContinuationKey(false, 0, term.ToArray());
            after = _anchorEntry;
        }
        else
        {
            anchor = null;
            after = 0;
        }

        _restKeys = new SortKeySource(_spec, _reader, anchor, _ct);
        _rest = new SortedCandidates(_matches, [_restKeys], anchor == null ? null : after, Math.Max(1, _nextBatch), _nextBatch, _ct);
    }

    /// <summary>Keeps the matches whose sort key the current term is, until the batch is full or the budget spent.</summary>
    private ref struct Sink(TermWalkCandidates owner) : ITermEntrySink
    {
        public bool Add(ReadOnlySpan<byte> term, ReadOnlySpan<long> entries)
        {
            var o = owner;
            var matches = CollectionsMarshal.AsSpan(o._matches);
            foreach (var entry in entries)
            {
                if ((++o._visited & CancellationCheck.Mask) == 0)
                {
                    o._ct.ThrowIfCancellationRequested();
                }

                if (o._filtered && matches.BinarySearch(entry) < 0)
                {
                    if (o._visited > o._budget)
                    {
                        o._budgetSpent = true;
                        return false;
                    }

                    continue;
                }

                if (!o._spec.SingleValued && !IsSortKey(o, entry, term))
                {
                    continue;
                }

                o._batch.Add(entry);
                o.SetAnchorTerm(term);
                o._anchorEntry = entry;
                o._hasAnchor = true;
                if (o._batch.Count == o._capacity)
                {
                    return false;
                }
            }

            return true;
        }

        private static bool IsSortKey(TermWalkCandidates o, long entry, ReadOnlySpan<byte> term)
        {
            if (o._spec.Kind == SortKeyKind.TermRank)
            {
                return o._reader.IsFirstTerm(entry, o._spec.Field, term);
            }

            Span<ulong> key = stackalloc ulong[1];
            o._reader.ReadColumnSortKeys(o._spec.Field, [entry], key);
            return term.Length == 8 && key[0] == BinaryPrimitives.ReadUInt64BigEndian(term);
        }
    }
}
