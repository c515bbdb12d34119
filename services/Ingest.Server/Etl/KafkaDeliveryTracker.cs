using System.Runtime.InteropServices;
using Confluent.Kafka;
using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Counts one batch's delivery reports: every record carries the batch's handle as its opaque (one
/// handle per batch, not per record), and the batch's task completes when the last report is in and
/// the sender is done, faulting if any report was an error (the first is named), a record was not
/// handed over, or the producer was closed first.
/// </summary>
internal sealed unsafe class KafkaDeliveryTracker : IKafkaDeliveryReports
{
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Action<KafkaDeliveryTracker> _finished;
    private readonly Func<int, string>? _describe;
    private GCHandle _handle;

    // Reports still to come plus one hold for the sender, so the batch cannot complete while its records are being handed over.
    private int _outstanding;
    private int _firstError;

    // The batch's values in native memory, which librdkafka reads in place until the last report.
    private byte* _values;

    /// <param name="count">The batch's records.</param>
    /// <param name="valueBytes">The bytes of their values.</param>
    /// <param name="finished">Called once the last report is in.</param>
    /// <param name="describe">The failure's text for the first report's error code (the producer may know its cause); null: librdkafka's text.</param>
    public KafkaDeliveryTracker(int count, nuint valueBytes, Action<KafkaDeliveryTracker> finished, Func<int, string>? describe = null)
    {
        _describe = describe;
        _outstanding = count + 1;
        _values = (byte*)NativeMemory.Alloc(Math.Max(valueBytes, 1));
        _finished = finished;
        _handle = GCHandle.Alloc(this);
        Opaque = GCHandle.ToIntPtr(_handle);
    }

    /// <summary>Where the batch's values go (as many bytes as the constructor was told), freed once no record needs them.</summary>
    public byte* Values => _values;

    /// <summary>What each of the batch's records carries to its delivery report.</summary>
    public nint Opaque { get; }

    public Task Acknowledged => _done.Task;

    public void Delivered(int error)
    {
        if (error != 0)
        {
            Interlocked.CompareExchange(ref _firstError, error, 0);
        }

        Release(1);
    }

    /// <summary>
    /// The sender is done with the batch; <paramref name="unsent"/> of its records were never handed
    /// over (refused, or the send was cancelled), so no report comes for them and the batch fails.
    /// </summary>
    public void SenderDone(int unsent, Exception? error = null)
    {
        if (unsent > 0)
        {
            Fail(error ?? new EtlDeliveryException("The batch was not handed to Kafka in full."));
        }

        Release(unsent + 1);
    }

    public void Fail(Exception error) => _done.TrySetException(error);

    /// <summary>The producer was closed (no more reports come): the batch fails now and lets go of its handle.</summary>
    public void Abandon(Exception error)
    {
        Fail(error);
        if (Interlocked.Exchange(ref _outstanding, 0) > 0)
        {
            Finish();
        }
    }

    private void Release(int count)
    {
        if (Interlocked.Add(ref _outstanding, -count) == 0)
        {
            Finish();
        }
    }

    private void Finish()
    {
        _handle.Free();
        NativeMemory.Free(_values);
        _values = null;
        if (_firstError != 0)
        {
            var error = new Error((ErrorCode)_firstError);
            Fail(new EtlDeliveryException(_describe?.Invoke(_firstError) ?? $"Kafka did not acknowledge every message: {error.Code}: {error.Reason}"));
        }
        else
        {
            _done.TrySetResult();
        }

        _finished(this);
    }
}
