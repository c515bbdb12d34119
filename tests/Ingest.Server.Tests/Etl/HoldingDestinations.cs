using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// A destination factory for the pipelining tests: each destination is the real one (a real broker
/// acknowledges), and every batch handed over is recorded in order with the destination it went to.
/// The acknowledgement of one chosen batch (counted over every destination) is held back after the
/// broker's until the test releases or fails it: the failure injected in the delivery path.
/// </summary>
internal sealed class HoldingDestinations(int heldBatch)
{
    private readonly TaskCompletionSource _hold = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<SentBatch> _sent = [];
    private int _destinations;

    /// <summary>One handed-over batch: which destination (0 first), its messages, and the broker's acknowledgement.</summary>
    public sealed record SentBatch(int Destination, IReadOnlyList<EtlMessage> Messages, Task Acknowledged);

    public IReadOnlyList<SentBatch> Sent
    {
        get
        {
            lock (_sent)
            {
                return [.. _sent];
            }
        }
    }

    public IEtlDestination Create(EtlTaskDefinition definition) => new Holding(this, EtlService.CreateDestination(definition), Interlocked.Increment(ref _destinations) - 1);

    /// <summary>Fails the held batch's acknowledgement, as a broker that did not acknowledge it would.</summary>
    public void Fail(string reason) => _hold.TrySetException(new EtlDeliveryException(reason));

    /// <summary>Waits until at least <paramref name="count"/> batches were handed over.</summary>
    public async Task WaitSentAsync(int count)
    {
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while (Sent.Count < count)
        {
            await Task.Delay(20, timeout.Token);
        }
    }

    private Task Record(int destination, IReadOnlyList<EtlMessage> messages, Task acknowledged)
    {
        lock (_sent)
        {
            var held = _sent.Count == heldBatch ? HoldAsync(acknowledged) : acknowledged;
            _sent.Add(new SentBatch(destination, messages, acknowledged));
            return held;
        }
    }

    private async Task HoldAsync(Task acknowledged)
    {
        await acknowledged;
        await _hold.Task;
    }

    private sealed class Holding(HoldingDestinations owner, IEtlDestination inner, int index) : IEtlDestination
    {
        public string Describe => inner.Describe;

        public async ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken) =>
            owner.Record(index, messages, await inner.SendAsync(messages, cancellationToken));

        public ValueTask DisposeAsync() => inner.DisposeAsync();
    }
}
