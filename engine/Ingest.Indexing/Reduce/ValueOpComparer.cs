namespace Ingest.Indexing.Reduce;

/// <summary>Orders value ops by their key bytes (unsigned), so the batch writes "reduce/values" in one ordered pass.</summary>
internal sealed class ValueOpComparer : IComparer<ValueOp>
{
    public byte[] Arena { get; set; } = [];

    public int Compare(ValueOp x, ValueOp y) =>
        Arena.AsSpan(x.Start, x.Length).SequenceCompareTo(Arena.AsSpan(y.Start, y.Length));
}
