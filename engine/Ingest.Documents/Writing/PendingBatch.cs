namespace Ingest.Documents.Writing;

internal sealed class PendingBatch(WriteBatch batch) : PendingWrite
{
    private readonly TaskCompletionSource<WriteResult> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private WriteResult _result;

    public Task<WriteResult> Task => _completion.Task;

    public override long Bytes => batch.PayloadBytes + (batch.Count * 64L);

    public override bool IsBatch => true;

    public override void Apply(TransactionWriter writer) => _result = writer.Apply(batch);

    public override void Complete()
    {
        batch.EndFlight();
        _completion.TrySetResult(_result);
    }

    public override void Fail(Exception error)
    {
        batch.EndFlight();
        _completion.TrySetException(error);
    }
}
