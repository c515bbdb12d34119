using Confluent.Kafka;

namespace Ingest.Server.Etl;

/// <summary>
/// Counts one batch's delivery reports: its task completes when the last one is in, and faults if
/// any of them was an error (the first error is named).
/// </summary>
internal sealed class KafkaDeliveryTracker
{
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Action<KafkaDeliveryTracker> _finished;
    private int _pending;
    private Error? _firstError;

    public KafkaDeliveryTracker(int count, Action<KafkaDeliveryTracker> finished)
    {
        _pending = count;
        _finished = finished;
        OnDelivered = Deliver;
    }

    /// <summary>The delivery handler for each of the batch's records (one delegate for the whole batch).</summary>
    public Action<DeliveryReport<byte[], byte[]?>> OnDelivered { get; }

    public Task Acknowledged => _done.Task;

    public void Fail(Exception error)
    {
        if (_done.TrySetException(error))
        {
            _finished(this);
        }
    }

    private void Deliver(DeliveryReport<byte[], byte[]?> report)
    {
        if (report.Error.IsError)
        {
            Interlocked.CompareExchange(ref _firstError, report.Error, null);
        }

        if (Interlocked.Decrement(ref _pending) != 0)
        {
            return;
        }

        if (_firstError is { } error)
        {
            Fail(new EtlDeliveryException($"Kafka did not acknowledge every message: {error.Code}: {error.Reason}"));
        }
        else if (_done.TrySetResult())
        {
            _finished(this);
        }
    }
}
