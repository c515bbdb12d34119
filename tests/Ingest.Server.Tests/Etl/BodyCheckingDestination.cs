using Ingest.Documents;
using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// Wraps a real destination and holds back each batch's acknowledgement until the task handed over
/// the next batch (so the task has read it meanwhile), then, before passing the acknowledgement on,
/// compares every message's body with the document in the store: a body whose memory the task
/// reused for a later batch before the acknowledgement shows up as a mismatch.
/// </summary>
internal sealed class BodyCheckingDestination(IEtlDestination inner, DocumentStore store) : IEtlDestination
{
    // The last batch has no next one: its acknowledgement goes on after this long instead.
    private static readonly TimeSpan LastBatchRelease = TimeSpan.FromMilliseconds(200);

    private readonly List<string> _mismatches = [];
    private TaskCompletionSource _nextHandedOver = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public int Batches { get; private set; }

    public IReadOnlyList<string> Mismatches
    {
        get
        {
            lock (_mismatches)
            {
                return [.. _mismatches];
            }
        }
    }

    public string Describe => inner.Describe;

    public async ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        var acknowledged = await inner.SendAsync(messages, cancellationToken);
        Batches++;
        var previous = _nextHandedOver;
        _nextHandedOver = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        previous.TrySetResult();
        return CheckAsync(messages, acknowledged, _nextHandedOver.Task);
    }

    public ValueTask DisposeAsync() => inner.DisposeAsync();

    private async Task CheckAsync(IReadOnlyList<EtlMessage> messages, Task acknowledged, Task nextHandedOver)
    {
        await acknowledged;
        await Task.WhenAny(nextHandedOver, Task.Delay(LastBatchRelease));
        foreach (var message in messages)
        {
            if (!message.Deleted && !message.Body.Span.SequenceEqual(store.Get(message.DocumentId)!.Body.Span))
            {
                lock (_mismatches)
                {
                    _mismatches.Add($"{message.DocumentId}@{message.Etag}");
                }
            }
        }
    }
}
