namespace Ingest.Indexing.Storage;

/// <summary>
/// Receives the entries of a term walk (<see cref="IndexReader.WalkTerms"/>): each term's entries in ascending chunks,
/// the term beside them; a chunk and the term are valid only during the call.
/// </summary>
public interface ITermEntrySink
{
    /// <summary>Takes a chunk of <paramref name="term"/>'s entries; false stops the walk.</summary>
    bool Add(ReadOnlySpan<byte> term, ReadOnlySpan<long> entries);
}
