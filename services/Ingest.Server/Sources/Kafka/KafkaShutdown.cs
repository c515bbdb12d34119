namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The three ways a Kafka source's consume thread is told to stop, as tokens it and the rebalance
/// callbacks watch: a graceful stop (drain, store offsets, leave the group), giving up on the store
/// during a drain (the host's patience ran out), and abandoning at once (disposed without a stop).
/// The tokens are read, never cancelled, outside this class.
/// </summary>
internal sealed class KafkaShutdown : IDisposable
{
    private readonly CancellationTokenSource _stopping = new();
    private readonly CancellationTokenSource _abandon = new();
    private readonly CancellationTokenSource _drainCancel = new();

    public KafkaShutdown()
    {
        // Taken once: a thread left behind after disposal still reads them.
        Stopping = _stopping.Token;
        Abandoning = _abandon.Token;
        DrainGivenUp = _drainCancel.Token;
    }

    /// <summary>A graceful stop was asked: the loop ends after its current poll, drains and leaves the group.</summary>
    public CancellationToken Stopping { get; }

    /// <summary>Disposed without a graceful stop: nothing more is drained, stored for the group, or handed to the writer.</summary>
    public CancellationToken Abandoning { get; }

    /// <summary>Waiting for the store is given up on: what is not durable is not committed anywhere, so the broker redelivers it.</summary>
    public CancellationToken DrainGivenUp { get; }

    public Task StopAsync() => _stopping.CancelAsync();

    /// <summary>Gives up draining once <paramref name="patience"/> runs out; dispose the registration when no longer waiting.</summary>
    public CancellationTokenRegistration GiveUpDrainingWhen(CancellationToken patience) =>
        patience.Register(static state => ((CancellationTokenSource)state!).Cancel(), _drainCancel);

    /// <summary>Gives up on everything at once: abandon, stop draining, stop.</summary>
    public async Task AbandonAsync()
    {
        await _abandon.CancelAsync().ConfigureAwait(false);
        await _drainCancel.CancelAsync().ConfigureAwait(false);
        await _stopping.CancelAsync().ConfigureAwait(false);
    }

    /// <summary>Only once the consume thread has finished: a thread left behind still reads the tokens' wait handles.</summary>
    public void Dispose()
    {
        _stopping.Dispose();
        _abandon.Dispose();
        _drainCancel.Dispose();
    }
}
