using Ingest.Storage;

namespace Ingest.Documents.Writing;

/// <summary>
/// The store's one writer: a dedicated thread that drains everything queued since its last
/// commit into one storage transaction, commits it (one journal write and sync), then completes
/// every caller. While it syncs, new callers queue up and ride the next commit together, so many
/// small writers share syncs instead of paying one each. A transaction takes waiting work until it
/// holds <see cref="DocumentStoreOptions.MaxTransactionBytes"/> of payload.
/// </summary>
internal sealed class GroupCommitWriter : IDisposable
{
    private readonly StorageEnvironment _env;
    private readonly long _maxTransactionBytes;
    private readonly Action<long> _committed;
    private readonly TransactionWriter _writer;
    private readonly Queue<PendingWrite> _queue = new();
    private readonly List<PendingWrite> _current = [];
    private readonly object _gate = new();
    private readonly Thread _thread;
    private bool _stopping;
    private long _commits;
    private long _batches;

    public GroupCommitWriter(StorageEnvironment env, long maxTransactionBytes, TransactionWriter writer, Action<long> committed)
    {
        _env = env;
        _writer = writer;
        _maxTransactionBytes = maxTransactionBytes;
        _committed = committed;
        _thread = new Thread(Loop) { IsBackground = true, Name = "Ingest.Documents writer" };
        _thread.Start();
    }

    public long Commits => Interlocked.Read(ref _commits);

    public long Batches => Interlocked.Read(ref _batches);

    public void Enqueue(PendingWrite write)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_stopping, typeof(DocumentStore));
            _queue.Enqueue(write);
            Monitor.Pulse(_gate);
        }
    }

    private void Loop()
    {
        while (true)
        {
            lock (_gate)
            {
                while (_queue.Count == 0 && !_stopping)
                {
                    Monitor.Wait(_gate);
                }

                if (_queue.Count == 0)
                {
                    return;
                }

                long bytes = 0;
                while (_queue.Count > 0 && (_current.Count == 0 || bytes + _queue.Peek().Bytes <= _maxTransactionBytes))
                {
                    var next = _queue.Dequeue();
                    bytes += next.Bytes;
                    _current.Add(next);
                }
            }

            Execute(_current);
            _current.Clear();
        }
    }

    private void Execute(List<PendingWrite> writes)
    {
        long lastEtag;
        try
        {
            using var tx = _env.BeginWrite();
            _writer.Begin(tx);
            foreach (var write in writes)
            {
                write.Apply(_writer);
            }

            _writer.End();
            lastEtag = _writer.LastEtag;
            tx.Commit();
        }
        catch (Exception ex) when (writes.Count > 1 && ex is not (IOException or ObjectDisposedException))
        {
            // Something in one of the merged writes failed while applying (validation ran before,
            // so this is rare); nothing was committed. Retry each alone so only the culprit fails.
            foreach (var write in writes)
            {
                Execute([write]);
            }

            return;
        }
#pragma warning disable CA1031 // The failure goes to the callers whose writes it concerns.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            foreach (var write in writes)
            {
                write.Fail(ex);
            }

            return;
        }

        // Committed: from here on nothing may retry or fail these writes, or they would apply twice.
        _writer.Committed();
        Published(writes, lastEtag);
    }

    private void Published(List<PendingWrite> writes, long lastEtag)
    {
        Interlocked.Increment(ref _commits);
        var batches = 0;
        foreach (var write in writes)
        {
            batches += write.IsBatch ? 1 : 0;
        }

        Interlocked.Add(ref _batches, batches);
        try
        {
            _committed(lastEtag);
        }
#pragma warning disable CA1031 // The writes are durable whatever happens here; the next commit publishes a later etag.
        catch (Exception)
#pragma warning restore CA1031
        {
        }

        foreach (var write in writes)
        {
            write.Complete();
        }
    }

    /// <summary>Finishes everything queued, then stops the thread.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _stopping = true;
            Monitor.Pulse(_gate);
        }

        _thread.Join();
        _writer.Dispose();
    }
}
