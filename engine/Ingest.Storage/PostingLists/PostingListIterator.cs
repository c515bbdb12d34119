using Ingest.Storage.FixedSizeTrees;

namespace Ingest.Storage.PostingLists;

/// <summary>
/// Ascending enumeration of a <see cref="PostingList"/>, decoded a block at a time into the
/// caller's buffer, leaf after leaf:
/// <code>
/// var ids = list.Iterate();
/// Span&lt;long&gt; buffer = stackalloc long[256];
/// for (int n; (n = ids.Fill(buffer)) &gt; 0;) { ... buffer[..n] ... }
/// </code>
/// </summary>
public ref struct PostingListIterator
{
    private readonly PostingList _list;
    private readonly FixedSizeTreeCursor _cursor;
    private PostingListLeafEnumerator _leaf;
    private bool _hasLeaf;
    private bool _started;
    private long _seek;

    internal PostingListIterator(PostingList list)
    {
        _list = list;
        _cursor = list.CreateLeafCursor();
        _seek = -1;
    }

    /// <summary>The smallest buffer <see cref="Fill"/> accepts: one block.</summary>
    public static int MinBufferLength => PostingListLeaf.MaxIdsPerBlock;

    /// <summary>Makes the next <see cref="Fill"/> start at the first id &gt;= <paramref name="id"/>. Seeks only move forward.</summary>
    public void Seek(long id)
    {
        if (id <= _seek)
        {
            return;
        }

        _seek = id;
        if (!_started || !_hasLeaf || _list.Leaf(PostingList.LeafPage(_cursor)).LastId < id)
        {
            // Jump straight to the leaf that owns the id rather than decoding the ones before it.
            _started = true;
            _hasLeaf = PostingList.FindOwner(_cursor, id);
            if (_hasLeaf)
            {
                _leaf = new PostingListLeafEnumerator(_list.Leaf(PostingList.LeafPage(_cursor)));
            }
        }

        if (_hasLeaf)
        {
            _leaf.Seek(id);
        }
    }

    /// <summary>
    /// Decodes the next ids into <paramref name="buffer"/> (at least <see cref="MinBufferLength"/>
    /// long); returns how many were written, 0 at the end.
    /// </summary>
    public int Fill(scoped Span<long> buffer)
    {
        if (!_started)
        {
            _started = true;
            _hasLeaf = _cursor.First();
            if (_hasLeaf)
            {
                _leaf = new PostingListLeafEnumerator(_list.Leaf(PostingList.LeafPage(_cursor)));
            }
        }

        while (_hasLeaf)
        {
            var n = _leaf.Fill(buffer);
            if (n > 0)
            {
                return n;
            }

            _hasLeaf = _cursor.MoveNext();
            if (_hasLeaf)
            {
                _leaf = new PostingListLeafEnumerator(_list.Leaf(PostingList.LeafPage(_cursor)));
                if (_seek >= 0)
                {
                    _leaf.Seek(_seek);
                }
            }
        }

        return 0;
    }
}
