using System.Diagnostics;

namespace Ingest.Documents.Expiration;

/// <summary>
/// Keeps the expiration task from crowding out ingestion while it catches up. After each batch of deletes it looks at
/// whether anything else was written meanwhile (the store's last etag moved by more than the batch's own tombstones):
/// if so, it waits long enough that deleting takes at most <see cref="WriterShare"/> of the time; on an idle store it
/// does not wait. The writer is one thread, so each batch of deletes is time ingestion's batches wait for.
/// </summary>
public sealed class ExpirationPacer
{
    private long _etagBefore;
    private long _started;

    /// <param name="writerShare">The share of time the task may delete while other writes go on: more than 0, at most 1 (1: never waits).</param>
    public ExpirationPacer(double writerShare)
    {
        if (writerShare is not (> 0 and <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(writerShare), writerShare, "Must be more than 0 and at most 1.");
        }

        WriterShare = writerShare;
    }

    public double WriterShare { get; }

    /// <summary>Call before submitting a batch.</summary>
    public void Starting(DocumentStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        _etagBefore = store.LastEtag;
        _started = Stopwatch.GetTimestamp();
    }

    /// <summary>How long to wait after a batch that deleted <paramref name="deleted"/> documents: zero when nothing else was written.</summary>
    public TimeSpan Finished(DocumentStore store, long deleted)
    {
        ArgumentNullException.ThrowIfNull(store);
        var took = Stopwatch.GetElapsedTime(_started);
        var othersWrote = store.LastEtag - _etagBefore > deleted;
        return othersWrote && WriterShare < 1 ? took * ((1 / WriterShare) - 1) : TimeSpan.Zero;
    }
}
