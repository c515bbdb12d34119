namespace Ingest.Query.Execution;

/// <summary>The match set's entries in result order, produced lazily so only a page's worth is ever ordered or read.</summary>
internal abstract class EntryCandidates : IDisposable
{
    public abstract bool TryNext(out long entry);

    /// <summary>Whether entries may follow the last one returned (false once the order is known to be exhausted).</summary>
    public abstract bool MayHaveMore { get; }

    public virtual void Dispose()
    {
    }
}
