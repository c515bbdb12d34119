using System.Buffers.Binary;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Resolves a batch's documents against the "docs" tree in one pass in key order, before the entries are written:
/// which change is each document's last in the batch (the others are skipped), whether it is in the index and under
/// which entry, and, for a new document, the entry it gets (in batch order) and its "docs" key, put in key order.
/// Looking up and inserting each document where the batch met it cost two descents to a random leaf per document
/// (about a sixth of a rebuild's indexing thread in perf); in key order, consecutive documents share leaves that are
/// still in the cache, so a batch of n documents over a tree of L leaves costs about min(n, L) leaf misses instead of
/// 2n. The bigger the batch, the more documents share each leaf: that is what an unbounded batch buys over a capped one.
/// The arrays are kept and only grow.
/// </summary>
internal sealed class BatchDocuments
{
    private readonly ByteArena _keys = new();
    private readonly DocumentKeyOrder _order = new();
    private int[] _starts = [];
    private int[] _sorted = [];
    private long[] _entries = [];
    private bool[] _existed = [];
    private bool[] _last = [];

    /// <summary>Bytes the kept arrays hold, for a batch memory budget.</summary>
    public long CapacityBytes =>
        _keys.Bytes.Length + ((long)(_starts.Length + _sorted.Length) * sizeof(int)) + ((long)_entries.Length * sizeof(long)) + _existed.Length + _last.Length;

    /// <summary>Change <paramref name="index"/>'s entry: 0 when the change is skipped (a later one of the batch is the same document's, or it deletes a document the index does not hold).</summary>
    public long EntryOf(int index) => _entries[index];

    /// <summary>Whether change <paramref name="index"/>'s document was in the index before the batch.</summary>
    public bool Existed(int index) => _existed[index];

    /// <summary>Change <paramref name="index"/>'s "docs" key.</summary>
    public ReadOnlySpan<byte> KeyOf(int index) => _keys.Bytes.AsSpan(_starts[index], _starts[index + 1] - _starts[index]);

    /// <summary>
    /// Resolves every change of <paramref name="batch"/> and puts the new documents' keys into <paramref name="docs"/>.
    /// </summary>
    /// <exception cref="ArgumentException">A document id is too long for an index key (nothing is written).</exception>
    public void Resolve(IndexBatch batch, Tree docs, ref long nextEntry)
    {
        var count = batch.Count;
        Grow(ref _starts, count + 1);
        Grow(ref _sorted, count);
        Grow(ref _entries, count);
        Grow(ref _existed, count);
        Grow(ref _last, count);
        _keys.Clear();
        for (var i = 0; i < count; i++)
        {
            var id = batch[i].DocumentId;
            _starts[i] = _keys.Length;
            var length = IndexDocumentKey.Write(id, _keys.Reserve(Math.Min(Tree.MaxKeySize, Ingest.Documents.Ids.IdKey.MaxKeyBytes(id.Length))));
            if (length < 0)
            {
                throw new ArgumentException($"Document id '{id[..64]}...' is too long for an index key.", nameof(batch));
            }

            _keys.Advance(length);
            _sorted[i] = i;
        }

        _starts[count] = _keys.Length;
        _order.Keys = _keys.Bytes;
        _order.Starts = _starts;
        var sorted = _sorted.AsSpan(0, count);
        sorted.Sort(_order);

        // In key order: only the last change of each key counts; look it up while its neighbours' leaf is warm.
        for (var s = 0; s < count; s++)
        {
            var i = sorted[s];
            _existed[i] = false;
            _entries[i] = 0;
            _last[i] = s + 1 == count || !KeyOf(sorted[s + 1]).SequenceEqual(KeyOf(i));
            if (!_last[i])
            {
                continue;
            }

            if (docs.TryGet(KeyOf(i), out var value))
            {
                _existed[i] = true;
                _entries[i] = IndexLayout.ReadInt64(value);
            }
        }

        // New documents get entries in the order of their last change (ascending with those etags, as before; a document
        // changed under two casings of its id is numbered where its last change is), then their keys are put in key order.
        var added = false;
        for (var i = 0; i < count; i++)
        {
            if (_last[i] && !_existed[i] && !batch[i].IsDelete)
            {
                _entries[i] = nextEntry++;
                added = true;
            }
        }

        if (!added)
        {
            return;
        }

        Span<byte> number = stackalloc byte[8];
        foreach (var i in sorted)
        {
            if (_entries[i] != 0 && !_existed[i])
            {
                BinaryPrimitives.WriteInt64LittleEndian(number, _entries[i]);
                docs.Put(KeyOf(i), number);
            }
        }
    }

    private static void Grow<T>(ref T[] array, int length)
    {
        if (array.Length < length)
        {
            array = new T[Math.Max(length, array.Length * 2)];
        }
    }
}
