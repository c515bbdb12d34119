namespace Ingest.Documents.Writing;

/// <summary>A unit of work waiting for the writer thread; completed once the transaction holding it is durable.</summary>
internal abstract class PendingWrite
{
    /// <summary>Payload bytes, counted against the transaction's memory bound.</summary>
    public virtual long Bytes => 0;

    /// <summary>Whether this is a document batch (counted in <see cref="DocumentStore.BatchCount"/>).</summary>
    public virtual bool IsBatch => false;

    public abstract void Apply(TransactionWriter writer);

    public abstract void Complete();

    public abstract void Fail(Exception error);
}
