using System.Collections.Concurrent;
using Ingest.Documents.Expiration;

namespace Ingest.Server.Expiration;

/// <summary>What the expiration task has done since the server started; written by the task, read by <c>/stats</c> and metrics.</summary>
internal sealed class ExpirationProgress
{
    private readonly ConcurrentDictionary<string, long> _byCollection = new(StringComparer.Ordinal);
    private long _documents;
    private long _deadLetters;
    private long _runs;
    private long _failures;
    private long _lastRunTicks;
    private string? _lastError;

    public long Documents => Interlocked.Read(ref _documents);

    public long DeadLetters => Interlocked.Read(ref _deadLetters);

    public long Runs => Interlocked.Read(ref _runs);

    public long Failures => Interlocked.Read(ref _failures);

    public DateTime? LastRun => Interlocked.Read(ref _lastRunTicks) is var ticks and > 0 ? new DateTime(ticks, DateTimeKind.Utc) : null;

    public string? LastError => Volatile.Read(ref _lastError);

    public IReadOnlyDictionary<string, long> ByCollection => _byCollection;

    public void Expired(ExpirationBatchResult batch)
    {
        Interlocked.Add(ref _documents, batch.Deleted);
        foreach (var (collection, count) in batch.ByCollection)
        {
            _byCollection.AddOrUpdate(collection, count, (_, old) => old + count);
        }
    }

    public void DeadLettersExpired(long count) => Interlocked.Add(ref _deadLetters, count);

    public void RunFinished(DateTime at)
    {
        Interlocked.Increment(ref _runs);
        Interlocked.Exchange(ref _lastRunTicks, at.Ticks);
        Volatile.Write(ref _lastError, null);
    }

    public void RunFailed(string error)
    {
        Interlocked.Increment(ref _failures);
        Volatile.Write(ref _lastError, error);
    }
}
