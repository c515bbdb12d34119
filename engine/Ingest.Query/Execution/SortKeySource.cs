using System.Buffers;
using System.Buffers.Binary;
using Ingest.Indexing.Storage;
using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Query.Execution;

/// <summary>
/// The values of one order key for the entries of one reader, as comparable 128-bit keys: the high word is 1 for an
/// entry without a value (so those sort last in both directions), the low word the value, inverted for descending.
/// Columns are read per entry; keyword and id order build a rank per entry once (a pooled array over entry ids).
/// </summary>
internal sealed class SortKeySource : IDisposable
{
    public static readonly UInt128 Missing = new(1, 0);

    private readonly SortKeySpec _spec;
    private readonly FixedSizeTree? _column;
    private ulong[]? _ranks;

    public SortKeySource(SortKeySpec spec, IndexReader reader, ContinuationKey? anchor)
    {
        _spec = spec;
        if (spec.Kind == SortKeyKind.Column)
        {
            _column = reader.OpenColumn(spec.Field);
            AnchorKey = anchor == null ? default : anchor.Missing ? Missing : Adjust(anchor.Value);
            return;
        }

        var length = checked((int)(reader.MaxEntryId + 1));
        _ranks = ArrayPool<ulong>.Shared.Rent(length);
        Array.Clear(_ranks, 0, length);
        ulong anchorRank;
        if (spec.Kind == SortKeyKind.TermRank)
        {
            var scratch = EntryListPool.Rent();
            try
            {
                reader.RankTerms(spec.Field, _ranks, anchor?.Bytes ?? [], anchor is { Missing: false }, scratch, out anchorRank);
            }
            finally
            {
                EntryListPool.Return(scratch);
            }
        }
        else
        {
            reader.RankDocumentIds(_ranks, anchor?.Bytes ?? [], anchor is { Missing: false }, out anchorRank);
        }

        AnchorKey = anchor == null ? default : anchor.Missing ? Missing : Adjust(anchorRank);
    }

    public SortKeySpec Spec => _spec;

    /// <summary>The continuation anchor's key in this reader's numbering.</summary>
    public UInt128 AnchorKey { get; }

    public UInt128 KeyOf(long entry)
    {
        if (_column != null)
        {
            return _column.TryGet(entry, out var bytes) ? Adjust(BinaryPrimitives.ReadUInt64BigEndian(bytes)) : Missing;
        }

        var ranks = _ranks;
        if (ranks != null && (ulong)entry < (ulong)ranks.Length && ranks[entry] != 0)
        {
            return Adjust(ranks[entry]);
        }

        return Missing;
    }

    /// <summary>What a continuation token stores to resume after <paramref name="entry"/>: the raw column value, or the term / folded id bytes.</summary>
    public ContinuationKey AnchorOf(IndexReader reader, long entry)
    {
        switch (_spec.Kind)
        {
            case SortKeyKind.Column:
                return _column != null && _column.TryGet(entry, out var bytes)
                    ? new ContinuationKey(false, BinaryPrimitives.ReadUInt64BigEndian(bytes), [])
                    : new ContinuationKey(true, 0, []);
            case SortKeyKind.TermRank:
                return reader.TryReadFirstTerm(entry, _spec.Field, out var term) ? new ContinuationKey(false, 0, term) : new ContinuationKey(true, 0, []);
            default:
                return reader.TryReadDocumentKey(entry, out var key) ? new ContinuationKey(false, 0, key) : new ContinuationKey(true, 0, []);
        }
    }

    public void Dispose()
    {
        if (_ranks != null)
        {
            ArrayPool<ulong>.Shared.Return(_ranks);
            _ranks = null;
        }
    }

    private UInt128 Adjust(ulong value) => new(0, _spec.Descending ? ~value : value);
}
