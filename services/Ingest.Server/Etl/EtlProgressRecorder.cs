using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// An ETL task's progress: the store's consumer <c>etl/{name}</c>, which also keeps tombstones until
/// the task has sent them. Progress moves only to the end of batches the broker acknowledged in full
/// (<see cref="Acknowledge"/>) and is recorded one durable write at a time, off the loop's path: a
/// durable write takes milliseconds (a journal sync), in which the loop hands over the next batches,
/// and the acknowledgements that arrive meanwhile go into the next write together. The loop calls
/// everything but <see cref="RecordedEtag"/>, which status readers call from any thread. In cluster mode each write
/// also appends the progress per log partition to the cluster topic (<see cref="EtlLogProgressWriter"/>), so that
/// the next owner, on any node, resumes from it.
/// </summary>
internal sealed class EtlProgressRecorder(DocumentStore store, string consumerName, EtlLogProgressWriter? log = null)
{
    // Cancelled for the append as the task stops, after the writer's final timeout.
    private CancellationToken _appendCancellation;

    // The progress the store made durable; then the last the broker acknowledged, and the last the
    // loop asked the store to record (the write under way, or the last one made).
    private long _recordedEtag;
    private long _acknowledgedEtag;
    private long _requestedEtag;
    private Task _write = Task.CompletedTask;

    // The batches acknowledged but not yet asked to be recorded, and those the write under way
    // records: they count against the batches in flight, as a crash sends them again too.
    private int _batchesUnrecorded;
    private int _batchesBeingRecorded;

    /// <summary>Every change up to here was acknowledged by the broker and is recorded in the store.</summary>
    public long RecordedEtag => Interlocked.Read(ref _recordedEtag);

    /// <summary>Every change up to here was acknowledged by the broker; where the task reads again after a failed delivery.</summary>
    public long AcknowledgedEtag => _acknowledgedEtag;

    /// <summary>Batches acknowledged whose progress is not recorded yet, the write under way included.</summary>
    public int UnrecordedBatches => _batchesUnrecorded + (_write.IsCompleted ? 0 : _batchesBeingRecorded);

    /// <summary>Registers the consumer, keeping its earlier progress (called again each time the task resumes).</summary>
    /// <returns>The recorded progress the task goes on from.</returns>
    public async Task<long> RegisterAsync()
    {
        _appendCancellation = default;
        var recorded = await store.RegisterConsumerAsync(consumerName).ConfigureAwait(false);
        _recordedEtag = _acknowledgedEtag = _requestedEtag = recorded;
        return recorded;
    }

    /// <summary>The broker acknowledged <paramref name="batches"/> more batches in full, the last ending at <paramref name="lastEtag"/>.</summary>
    public void Acknowledge(long lastEtag, int batches)
    {
        _acknowledgedEtag = lastEtag;
        _batchesUnrecorded += batches;
    }

    /// <summary>
    /// Has the store record the acknowledged progress. Without <paramref name="waitForWrite"/> it returns at once
    /// when a write is still being made (the next call records what was acknowledged meanwhile); with it, it
    /// returns once everything acknowledged so far is recorded. A failed write (the store is broken) throws
    /// here, which stops the task.
    /// </summary>
    public async Task RecordAsync(bool waitForWrite)
    {
        if (!_write.IsCompleted && !waitForWrite)
        {
            return;
        }

        await _write.ConfigureAwait(false);
        _batchesBeingRecorded = 0;
        if (_acknowledgedEtag > _requestedEtag)
        {
            _requestedEtag = _acknowledgedEtag;
            _batchesBeingRecorded = _batchesUnrecorded;
            _batchesUnrecorded = 0;
            _write = RecordInStoreAsync(_requestedEtag, log?.Snapshot());
            if (waitForWrite)
            {
                await _write.ConfigureAwait(false);
            }
        }
    }

    /// <summary>Cluster mode, while another node owns the task: the owners' recorded progress covers the local feed up to <paramref name="etag"/>.</summary>
    public async Task AdvanceRecordedAsync(long etag)
    {
        await store.ReportProgressAsync(consumerName, etag).ConfigureAwait(false);
        _acknowledgedEtag = _requestedEtag = etag;
        Interlocked.Exchange(ref _recordedEtag, etag);
    }

    /// <summary>As the loop ends: records what was acknowledged, so a restart does not send it again (unless the store is closing too).</summary>
    public async Task RecordBeforeStopAsync()
    {
        using var timeout = log is null ? null : new CancellationTokenSource(log.FinalAppendTimeout);
        _appendCancellation = timeout?.Token ?? default;
        try
        {
            await RecordAsync(waitForWrite: true).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // The store closed first or failed: the unrecorded tail is sent again after a restart (at-least-once).
        }
    }

    private async Task RecordInStoreAsync(long etag, ReadOnlyMemory<byte>? logSnapshot)
    {
        await store.ReportProgressAsync(consumerName, etag).ConfigureAwait(false);
        Interlocked.Exchange(ref _recordedEtag, etag);
        if (logSnapshot is { } snapshot)
        {
            await log!.AppendAsync(snapshot, _appendCancellation).ConfigureAwait(false);
        }
    }
}
