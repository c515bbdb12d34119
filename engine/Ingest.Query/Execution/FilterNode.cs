using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>A bound step of a query's filter: it fills a list with the matching entries, ascending and distinct.</summary>
internal abstract class FilterNode
{
    /// <summary>Appends the matches to <paramref name="result"/>, which is empty.</summary>
    public abstract void Evaluate(IndexReader reader, List<long> result, CancellationToken ct);

    /// <summary>The step for explain; with a reader, its size there (computed, observing <paramref name="ct"/>).</summary>
    public abstract QueryPlanStep Describe(IndexReader? reader, CancellationToken ct);

    protected long? SizeIn(IndexReader? reader, CancellationToken ct)
    {
        if (reader == null)
        {
            return null;
        }

        var list = EntryListPool.Rent();
        try
        {
            Evaluate(reader, list, ct);
            return list.Count;
        }
        finally
        {
            EntryListPool.Return(list);
        }
    }
}
