using System.Buffers;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// The values of one order key for the entries of one reader, as comparable 128-bit keys: the high word is 1 for an
/// entry without a value (so those sort last in both directions), the low word the value, inverted for descending.
/// Columns are read in bulk (one ordered walk per chunk of matches); keyword and id order build a rank per entry once
/// (a pooled array over entry ids) from one walk of the field's terms or of the ids.
/// </summary>
internal sealed class SortKeySource : IDisposable
{
    public static readonly UInt128 Missing = new(1, 0);

    private readonly SortKeySpec _spec;
    private readonly IndexReader _reader;
    private readonly ContinuationKey? _anchor;
    private readonly CancellationToken _ct;
    private ulong[]? _ranks;
    private ulong[]? _columnKeys;
    private UInt128 _anchorKey;

    /// <summary>
    /// Keyword and id ranks are built on the first <see cref="KeysOf"/> or <see cref="AnchorKey"/>, not here: a term walk
    /// (<see cref="TermWalkCandidates"/>) uses the source only for a continuation's anchor and never needs them.
    /// </summary>
    public SortKeySource(SortKeySpec spec, IndexReader reader, ContinuationKey? anchor, CancellationToken ct)
    {
        _spec = spec;
        _reader = reader;
        _anchor = anchor;
        _ct = ct;
        if (spec.Kind == SortKeyKind.Column)
        {
            _anchorKey = anchor == null ? default : anchor.Missing ? Missing : Adjust(anchor.Value);
        }
    }

    public SortKeySpec Spec => _spec;

    /// <summary>The continuation anchor's key in this reader's numbering.</summary>
    public UInt128 AnchorKey
    {
        get
        {
            EnsureRanks();
            return _anchorKey;
        }
    }

    /// <summary>The keys of <paramref name="entries"/> (ascending) into <paramref name="keys"/>.</summary>
    public void KeysOf(ReadOnlySpan<long> entries, Span<UInt128> keys)
    {
        if (_spec.Kind == SortKeyKind.Column)
        {
            if (_columnKeys == null || _columnKeys.Length < entries.Length)
            {
                if (_columnKeys != null)
                {
                    ArrayPool<ulong>.Shared.Return(_columnKeys);
                }

                _columnKeys = ArrayPool<ulong>.Shared.Rent(entries.Length);
            }

            var raw = _columnKeys.AsSpan(0, entries.Length);
            _reader.ReadColumnSortKeys(_spec.Field, entries, raw);
            for (var i = 0; i < raw.Length; i++)
            {
                keys[i] = raw[i] == 0 ? Missing : Adjust(raw[i]);
            }

            return;
        }

        EnsureRanks();
        var ranks = _ranks!;
        for (var i = 0; i < entries.Length; i++)
        {
            var entry = entries[i];
            keys[i] = (ulong)entry < (ulong)ranks.Length && ranks[entry] != 0 ? Adjust(ranks[entry]) : Missing;
        }
    }

    /// <summary>What a continuation token stores to resume after <paramref name="entry"/>: the raw column value, or the term / folded id bytes.</summary>
    public ContinuationKey AnchorOf(long entry)
    {
        switch (_spec.Kind)
        {
            case SortKeyKind.Column:
                Span<ulong> raw = stackalloc ulong[1];
                _reader.ReadColumnSortKeys(_spec.Field, [entry], raw);
                return raw[0] == 0 ? new ContinuationKey(true, 0, []) : new ContinuationKey(false, raw[0], []);
            case SortKeyKind.TermRank:
                return _reader.TryReadFirstTerm(entry, _spec.Field, out var term) ? new ContinuationKey(false, 0, term) : new ContinuationKey(true, 0, []);
            default:
                return _reader.TryReadDocumentKey(entry, out var key) ? new ContinuationKey(false, 0, key) : new ContinuationKey(true, 0, []);
        }
    }

    public void Dispose()
    {
        if (_ranks != null)
        {
            ArrayPool<ulong>.Shared.Return(_ranks);
            _ranks = null;
        }

        if (_columnKeys != null)
        {
            ArrayPool<ulong>.Shared.Return(_columnKeys);
            _columnKeys = null;
        }
    }

    private void EnsureRanks()
    {
        if (_spec.Kind == SortKeyKind.Column || _ranks != null)
        {
            return;
        }

        var length = checked((int)(_reader.MaxEntryId + 1));
        var ranks = ArrayPool<ulong>.Shared.Rent(length);
        Array.Clear(ranks, 0, length);
        _ranks = ranks; // returned by Dispose even if ranking is cancelled
        var hasAnchor = _anchor is { Missing: false };
        ulong anchorRank;
        if (_spec.Kind == SortKeyKind.TermRank)
        {
            anchorRank = RankTerms(_reader, _spec.Field, ranks, _anchor?.Bytes ?? [], hasAnchor, _ct);
        }
        else
        {
            _reader.RankDocumentIds(ranks, _anchor?.Bytes ?? [], hasAnchor, out anchorRank);
        }

        _anchorKey = _anchor == null ? default : _anchor.Missing ? Missing : Adjust(anchorRank);
    }

    /// <summary>
    /// Sets <c>ranks[entry]</c> to <c>2i + 1</c> for the i-th term of the field that the entry holds first in term
    /// order, so an entry ranks by its smallest term (0: no term). Returns the anchor term's rank if the field has it,
    /// else the even rank just below the first term above it, so a keyset resumes correctly across new terms.
    /// </summary>
    private static ulong RankTerms(IndexReader reader, int field, ulong[] ranks, ReadOnlySpan<byte> anchor, bool hasAnchor, CancellationToken ct)
    {
        var scratch = EntryListPool.Rent();
        try
        {
            var terms = reader.EnumerateTerms(field);
            ulong index = 0;
            ulong anchorRank = 0;
            var anchorPlaced = !hasAnchor;
            while (terms.MoveNext())
            {
                if (((int)index & CancellationCheck.Mask) == CancellationCheck.Mask)
                {
                    ct.ThrowIfCancellationRequested();
                }

                var rank = (2 * index) + 1;
                if (!anchorPlaced)
                {
                    var order = terms.Term.SequenceCompareTo(anchor);
                    if (order >= 0)
                    {
                        anchorRank = order == 0 ? rank : rank - 1;
                        anchorPlaced = true;
                    }
                }

                scratch.Clear();
                terms.AppendEntries(scratch);
                foreach (var entry in scratch)
                {
                    if ((ulong)entry < (ulong)ranks.Length && ranks[entry] == 0)
                    {
                        ranks[entry] = rank;
                    }
                }

                index++;
            }

            return anchorPlaced ? anchorRank : 2 * index;
        }
        finally
        {
            EntryListPool.Return(scratch);
        }
    }

    private UInt128 Adjust(ulong value) => new(0, _spec.Descending ? ~value : value);
}
