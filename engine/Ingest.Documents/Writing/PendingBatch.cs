namespace Ingest.Documents.Writing;

/// <param name="batch">The validated batch.</param>
/// <param name="owner">The writer it was queued on (a predecessor must be queued on the same one).</param>
/// <param name="predecessor">A write queued earlier that must succeed for this one to apply, or null.</param>
internal sealed class PendingBatch(WriteBatch batch, GroupCommitWriter owner, PendingBatch? predecessor) : PendingWrite
{
    private readonly TaskCompletionSource<WriteResult> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private PendingBatch? _predecessor = predecessor;
    private WriteResult _result;

    public Task<WriteResult> Task => _completion.Task;

    public GroupCommitWriter Owner => owner;

    public override long Bytes => batch.PayloadBytes + (batch.Count * 64L);

    public override bool IsBatch => true;

    public override void Apply(TransactionWriter writer)
    {
        // The writer takes writes in queue order and completes or fails each transaction before it
        // starts the next, so a predecessor is either finished or applied in this same transaction
        // (then both commit or neither does, and a retry one by one fails it first).
        if (_predecessor is { Task: { IsCompleted: true, IsCompletedSuccessfully: false } })
        {
            throw new PredecessorWriteFailedException();
        }

        _result = writer.Apply(batch);
    }

    public override void Complete()
    {
        _predecessor = null; // no chain of every write ever made through reused batches
        batch.EndFlight();
        _completion.TrySetResult(_result);
    }

    public override void Fail(Exception error)
    {
        _predecessor = null;
        batch.EndFlight();
        _completion.TrySetException(error);
    }
}
