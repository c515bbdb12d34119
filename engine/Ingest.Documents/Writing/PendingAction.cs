namespace Ingest.Documents.Writing;

/// <summary>A bookkeeping write (consumer progress, tombstone purge, dead letter delete) that shares transactions with batches.</summary>
internal sealed class PendingAction<T>(Func<TransactionWriter, T> action) : PendingWrite
{
    private readonly TaskCompletionSource<T> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private T _result = default!;

    public Task<T> Task => _completion.Task;

    public override void Apply(TransactionWriter writer) => _result = action(writer);

    public override void Complete() => _completion.TrySetResult(_result);

    public override void Fail(Exception error) => _completion.TrySetException(error);
}
