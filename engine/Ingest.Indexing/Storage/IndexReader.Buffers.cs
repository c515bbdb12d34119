using System.Buffers;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>The reader's scratch buffers, pooled: a reader lives for one query.</summary>
public sealed partial class IndexReader
{
    /// <summary>
    /// Room for a key built to look up or seek (a term key, a folded document id), rented from the shared pool on first
    /// use and returned on <see cref="Dispose"/>: a reader lives for one query, and two 2,000-byte arrays allocated per
    /// reader were 4 KiB of the 9.7 KiB a range query allocated.
    /// </summary>
    private byte[] KeyBuffer => _key ??= RentKey();

    /// <summary>A second key, beside <see cref="KeyBuffer"/>: the exclusive upper bound of a range of keys.</summary>
    private byte[] HighBuffer => _high ??= RentKey();

    /// <summary>Room for a block of a posting list's ids, pooled as <see cref="KeyBuffer"/> is (1 KiB a reader).</summary>
    private long[] ChunkBuffer => _chunk ??= RentChunk();

    private byte[] RentKey()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return ArrayPool<byte>.Shared.Rent(Tree.MaxKeySize);
    }

    private long[] RentChunk()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return ArrayPool<long>.Shared.Rent(PostingListIterator.MinBufferLength);
    }

    private static void ReturnKey(ref byte[]? buffer)
    {
        if (buffer != null)
        {
            ArrayPool<byte>.Shared.Return(buffer);
            buffer = null;
        }
    }

    private void ReturnBuffers()
    {
        ReturnKey(ref _key);
        ReturnKey(ref _high);
        if (_chunk != null)
        {
            ArrayPool<long>.Shared.Return(_chunk);
            _chunk = null;
        }
    }
}
