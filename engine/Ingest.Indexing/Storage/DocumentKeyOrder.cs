namespace Ingest.Indexing.Storage;

/// <summary>Orders a batch's change numbers by their "docs" keys (laid end to end in <see cref="Keys"/>), then by batch order.</summary>
internal sealed class DocumentKeyOrder : IComparer<int>
{
    public byte[] Keys { get; set; } = [];

    /// <summary>Where change i's key starts; it ends where change i + 1's starts.</summary>
    public int[] Starts { get; set; } = [];

    public int Compare(int x, int y)
    {
        var c = Keys.AsSpan(Starts[x], Starts[x + 1] - Starts[x]).SequenceCompareTo(Keys.AsSpan(Starts[y], Starts[y + 1] - Starts[y]));
        return c != 0 ? c : x.CompareTo(y);
    }
}
