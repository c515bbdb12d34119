namespace Ingest.Storage.PostingLists;

/// <summary>
/// Ordered enumeration of a leaf, a block at a time into the caller's buffer:
/// <code>
/// var ids = leaf.GetIds();
/// while ((n = ids.Fill(buffer)) &gt; 0) { ... buffer[..n] ... }
/// </code>
/// </summary>
internal ref struct PostingListLeafEnumerator
{
    private readonly PostingListLeaf _leaf;
    private int _nextBlock;
    private long _lowerBound;

    public PostingListLeafEnumerator(PostingListLeaf leaf)
    {
        _leaf = leaf;
        _lowerBound = long.MinValue;
    }

    /// <summary>Makes the next <see cref="Fill"/> start at the first id &gt;= <paramref name="id"/>, skipping whole blocks by their directory entries. Seeks only move forward.</summary>
    public void Seek(long id)
    {
        if (id <= _lowerBound)
        {
            return;
        }

        _lowerBound = id;
        if (_leaf.BlockCount == 0)
        {
            return;
        }

        if (id > _leaf.LastId)
        {
            _nextBlock = _leaf.BlockCount;
            return;
        }

        _nextBlock = Math.Max(_nextBlock, _leaf.FindBlock(id));
    }

    /// <summary>
    /// Decodes the next blocks, as many whole ones as fit, into <paramref name="buffer"/> (at least
    /// <see cref="PostingListLeaf.MaxIdsPerBlock"/> long); returns the number of ids written, 0 at the end.
    /// </summary>
    public int Fill(scoped Span<long> buffer)
    {
        if (buffer.Length < PostingListLeaf.MaxIdsPerBlock)
        {
            throw new ArgumentException($"The buffer must hold at least {PostingListLeaf.MaxIdsPerBlock} ids.", nameof(buffer));
        }

        var written = 0;
        var blocks = _leaf.BlockCount;
        while (_nextBlock < blocks && buffer.Length - written >= PostingListLeaf.MaxIdsPerBlock)
        {
            var n = _leaf.DecodeBlock(_nextBlock++, buffer[written..]);
            if (written == 0 && buffer[0] < _lowerBound)
            {
                // First block after a seek: drop the ids below the bound.
                var skip = PostingListLeaf.LowerBound(buffer[..n], _lowerBound);
                buffer[skip..n].CopyTo(buffer);
                n -= skip;
            }

            written += n;
        }

        return written;
    }
}
