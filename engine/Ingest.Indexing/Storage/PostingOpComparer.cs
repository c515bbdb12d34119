namespace Ingest.Indexing.Storage;

/// <summary>Orders <see cref="PostingOp"/>s by field, then term bytes (unsigned), then entry: the term dictionary's key order.</summary>
internal sealed class PostingOpComparer : IComparer<PostingOp>
{
    /// <summary>The arena the ops' terms live in; set before each sort (the arena is replaced when it grows).</summary>
    public byte[] Arena { get; set; } = [];

    public int Compare(PostingOp x, PostingOp y)
    {
        if (x.Field != y.Field)
        {
            return x.Field.CompareTo(y.Field);
        }

        var c = CompareTerms(x, y);
        return c != 0 ? c : x.Entry.CompareTo(y.Entry);
    }

    /// <summary>Compares the terms only (0 when the two ops are on the same field and term).</summary>
    public int CompareTerms(PostingOp x, PostingOp y) =>
        x.Field != y.Field
            ? x.Field.CompareTo(y.Field)
            : Arena.AsSpan(x.Start, x.Length).SequenceCompareTo(Arena.AsSpan(y.Start, y.Length));
}
