namespace Ingest.Indexing.Storage;

/// <summary>Equality of two <see cref="PostingOp"/>s' field and term bytes (not their entries), over the arena of <see cref="PostingOpComparer"/>.</summary>
internal sealed class PostingOpTermEquality(PostingOpComparer comparer) : IEqualityComparer<PostingOp>
{
    public bool Equals(PostingOp x, PostingOp y) =>
        x.Field == y.Field && comparer.Arena.AsSpan(x.Start, x.Length).SequenceEqual(comparer.Arena.AsSpan(y.Start, y.Length));

    public int GetHashCode(PostingOp obj)
    {
        var hash = default(HashCode);
        hash.Add(obj.Field);
        hash.AddBytes(comparer.Arena.AsSpan(obj.Start, obj.Length));
        return hash.ToHashCode();
    }
}
