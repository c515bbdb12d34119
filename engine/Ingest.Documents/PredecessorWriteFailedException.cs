namespace Ingest.Documents;

/// <summary>
/// A write ordered after another (<see cref="DocumentStore.WriteAfterAsync"/>) was not applied
/// because that earlier write failed: nothing of it was written, and it can be retried once the
/// earlier one has been.
/// </summary>
public sealed class PredecessorWriteFailedException : InvalidOperationException
{
    public PredecessorWriteFailedException()
        : base("Nothing was written: the write this one was ordered after failed.")
    {
    }

    public PredecessorWriteFailedException(string message)
        : base(message)
    {
    }

    public PredecessorWriteFailedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
