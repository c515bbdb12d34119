namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// A reset asked for over HTTP, waiting for the consume thread, which alone touches the consumer. With
/// <paramref name="resolveOnly"/> the target is only resolved to offsets (what a cluster produces), nothing is moved.
/// </summary>
internal sealed class KafkaResetRequest(SourceResetTarget target, CancellationToken cancellationToken, bool resolveOnly = false)
{
    private readonly TaskCompletionSource<IReadOnlyList<PartitionReset>> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public SourceResetTarget Target { get; } = target;

    /// <summary>Resolve the target to each partition's offset and move nothing (the answer's <c>From</c> is null).</summary>
    public bool ResolveOnly { get; } = resolveOnly;

    /// <summary>The caller gave up: a reset not started yet is not started, and waiting for in-flight batches stops.</summary>
    public CancellationToken CancellationToken { get; } = cancellationToken;

    public Task<IReadOnlyList<PartitionReset>> Completion => _done.Task;

    public void Succeed(IReadOnlyList<PartitionReset> moved) => _done.TrySetResult(moved);

    public void Fail(Exception exception) => _done.TrySetException(exception);
}
