using Ingest.Documents;
using Ingest.Documents.Expiration;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Expiration;

/// <summary>
/// The expiration task: every <see cref="ExpirationOptions.Interval"/>, and at once when a rule changes, it brings
/// stored documents under changed rules, deletes what is due and drops dead letters past their retention. Each
/// batch is one transaction of at most <see cref="ExpirationOptions.BatchSize"/> documents queued on the store's
/// group-commit writer like any write, so ingestion's batches take turns with it instead of waiting for a whole run.
/// </summary>
internal sealed partial class ExpirationService(
    DocumentStore store, RetentionRules rules, ExpirationProgress progress, IOptions<ExpirationOptions> options, TimeProvider time,
    ILogger<ExpirationService> logger) : BackgroundService
{
    private readonly ExpirationOptions _options = options.Value;

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            await rules.ApplyAsync().ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not ObjectDisposedException)
        {
            progress.RunFailed($"applying the retention rules failed: {ex.Message}");
            LogRunFailed(logger, ex);
        }

        while (!stoppingToken.IsCancellationRequested)
        {
            var changed = rules.Changed;
            try
            {
                await RunOnceAsync(stoppingToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
            {
                return;
            }
            catch (ObjectDisposedException)
            {
                return; // the store closed under a stopping host
            }
            catch (Exception ex)
            {
                progress.RunFailed(ex.Message);
                LogRunFailed(logger, ex);
            }

            try
            {
                await Task.WhenAny(Task.Delay(_options.Interval, time, stoppingToken), changed).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>One run: re-stamp, then delete what is due, then dead letters; batch by batch until nothing is left.</summary>
    internal async Task RunOnceAsync(CancellationToken cancellationToken)
    {
        var batch = _options.BatchSize;
        while (await store.RestampExpiriesAsync(batch).ConfigureAwait(false) > 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
        }

        var now = time.GetUtcNow().UtcDateTime;
        var pacer = new ExpirationPacer(_options.WriterShare);
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            pacer.Starting(store);
            var result = await store.DeleteExpiredAsync(now, batch).ConfigureAwait(false);
            progress.Expired(result);
            if (!result.More)
            {
                break;
            }

            if (pacer.Finished(store, result.Deleted) is { Ticks: > 0 } pause)
            {
                await Task.Delay(pause, time, cancellationToken).ConfigureAwait(false);
            }
        }

        if (_options.DeadLetters.Keep is { } keep)
        {
            var cutoff = now - keep;
            long deleted;
            do
            {
                cancellationToken.ThrowIfCancellationRequested();
                deleted = await store.DeleteDeadLettersBeforeAsync(cutoff, batch).ConfigureAwait(false);
                progress.DeadLettersExpired(deleted);
            }
            while (deleted == batch);
        }

        progress.RunFinished(time.GetUtcNow().UtcDateTime);
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "Expiration: the run failed; the next run retries (expired documents stay hidden from reads meanwhile)")]
    private static partial void LogRunFailed(ILogger logger, Exception exception);
}
