namespace Ingest.Indexing.Storage;

/// <summary>Receives a term's entries in ascending chunks (<see cref="IndexReader.TermEnumerator.VisitEntries"/>); a chunk is valid only during the call.</summary>
public interface IEntrySink
{
    void Add(ReadOnlySpan<long> entries);
}
