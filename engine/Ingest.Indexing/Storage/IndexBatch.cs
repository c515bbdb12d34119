using System.Runtime.CompilerServices;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Storage;

/// <summary>
/// The changes one index transaction applies: puts (the document's terms extracted at once into the shared
/// <see cref="TermBuffer"/>, with one <see cref="FieldTally"/> per field) and deletes, in etag order. Reused across
/// batches: <see cref="Clear"/> keeps every array, so a batch allocates only when it outgrows the previous ones.
/// Not thread-safe.
/// </summary>
internal sealed class IndexBatch : IDisposable
{
    private readonly DocumentExtractor _extractor;
    private readonly int _fieldCount;
    private IndexChange[] _changes = new IndexChange[64];
    private FieldTally[] _tallies;
    private int _count;

    public IndexBatch(DocumentExtractor extractor)
    {
        ArgumentNullException.ThrowIfNull(extractor);
        _extractor = extractor;
        _fieldCount = extractor.Fields.Count;
        _tallies = new FieldTally[64 * _fieldCount];
    }

    public int Count => _count;

    /// <summary>The etag of the last change added; 0 when the batch is empty.</summary>
    public long LastEtag { get; private set; }

    public TermBuffer Terms { get; } = new();

    /// <summary>Bytes the batch's arrays hold (term buffer, changes, tallies), for the memory budget.</summary>
    public long CapacityBytes =>
        Terms.CapacityBytes + ((long)_changes.Length * Unsafe.SizeOf<IndexChange>()) + ((long)_tallies.Length * Unsafe.SizeOf<FieldTally>());

    /// <summary>Bytes the batch's contents use now (its arrays may be up to twice as large after growing).</summary>
    public long UsedBytes =>
        Terms.ByteCount + ((long)Terms.Count * 2 * sizeof(int)) + ((long)_count * (Unsafe.SizeOf<IndexChange>() + (_fieldCount * Unsafe.SizeOf<FieldTally>())));

    public IndexChange this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)index, (uint)_count, nameof(index));
            return _changes[index];
        }
    }

    /// <summary>Change <paramref name="index"/>'s tally for each field (empty for a delete).</summary>
    public ReadOnlySpan<FieldTally> TalliesOf(int index) => _tallies.AsSpan(index * _fieldCount, _fieldCount);

    /// <summary>Adds a put: extracts <paramref name="document"/> (UTF-8 JSON; malformed JSON indexes as no terms and no nulls).</summary>
    public void Put(string documentId, long etag, ReadOnlySpan<byte> document)
    {
        var slot = Reserve(documentId, etag);
        var first = Terms.Count;
        _extractor.Extract(document, Terms, _tallies.AsSpan(slot * _fieldCount, _fieldCount));
        _changes[slot] = new IndexChange(documentId, etag, IsDelete: false, first, Terms.Count);
    }

    public void Delete(string documentId, long etag)
    {
        var slot = Reserve(documentId, etag);
        _tallies.AsSpan(slot * _fieldCount, _fieldCount).Clear();
        _changes[slot] = new IndexChange(documentId, etag, IsDelete: true, Terms.Count, Terms.Count);
    }

    public void Clear()
    {
        Array.Clear(_changes, 0, _count);
        _count = 0;
        LastEtag = 0;
        Terms.Clear();
    }

    public void Dispose() => Terms.Dispose();

    private int Reserve(string documentId, long etag)
    {
        ArgumentException.ThrowIfNullOrEmpty(documentId);
        if (etag <= LastEtag)
        {
            throw new ArgumentOutOfRangeException(nameof(etag), etag, $"Changes must come in ascending etag order; the batch is at {LastEtag}.");
        }

        if (_count == _changes.Length)
        {
            Array.Resize(ref _changes, _count * 2);
            Array.Resize(ref _tallies, _count * 2 * _fieldCount);
        }

        LastEtag = etag;
        return _count++;
    }
}
