namespace Ingest.Server.Sources.Kafka;

/// <summary>A reset asked for over HTTP, waiting for the consume thread, which alone touches the consumer.</summary>
internal sealed class KafkaResetRequest(SourceResetTarget target, CancellationToken cancellationToken)
{
    private readonly TaskCompletionSource<IReadOnlyList<PartitionReset>> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public SourceResetTarget Target { get; } = target;

    /// <summary>The caller gave up: a reset not started yet is not started, and waiting for in-flight batches stops.</summary>
    public CancellationToken CancellationToken { get; } = cancellationToken;

    public Task<IReadOnlyList<PartitionReset>> Completion => _done.Task;

    public void Succeed(IReadOnlyList<PartitionReset> moved) => _done.TrySetResult(moved);

    public void Fail(Exception exception) => _done.TrySetException(exception);
}
