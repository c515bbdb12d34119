using System.Diagnostics;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Storage;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// Runs one of the service's sources into a fresh durable <see cref="DocumentStore"/> until the
/// store holds every pre-loaded document, reading the source's status every few milliseconds.
/// <c>alongside</c>, when given, starts what runs beside the source on the same store (the query load of
/// <c>kafka-ingest-under-queries</c>) before the source starts; it is disposed once every document is durable.
/// </summary>
internal static class SourceIngestRun
{
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(5);

    public static async Task<IngestionMeasurement> RunAsync(
        string directory, PreloadedData data, Func<DocumentStore, IngestSource> createSource, TimeSpan timeout, Func<DocumentStore, Task<IAsyncDisposable>>? alongside = null)
    {
        using var store = DocumentStore.Open(directory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.Durable } });
        var beside = alongside is null ? null : await alongside(store).ConfigureAwait(false);
        try
        {
            return await RunSourceAsync(store, data, createSource(store), timeout).ConfigureAwait(false);
        }
        finally
        {
            if (beside is not null)
            {
                await beside.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static async Task<IngestionMeasurement> RunSourceAsync(DocumentStore store, PreloadedData data, IngestSource source, TimeSpan timeout)
    {
        await using (source.ConfigureAwait(false))
        {
            var commitsBefore = store.CommitCount;
            var cpuStarted = ProcessCpu.Now();
            var threadsStarted = ProcessCpu.ByThreadName();
            var allocatedBefore = GC.GetTotalAllocatedBytes(precise: false);
            var gen0Before = GC.CollectionCount(0);
            var gen1Before = GC.CollectionCount(1);
            var gen2Before = GC.CollectionCount(2);
            var started = Stopwatch.GetTimestamp();
            await source.StartAsync(CancellationToken.None).ConfigureAwait(false);
            long first = 0;
            SourceStatus status;
            while (true)
            {
                status = source.GetStatus();
                if (first == 0 && status.Consumed > 0)
                {
                    first = Stopwatch.GetTimestamp();
                }

                // Written counts puts once their batch is durable.
                if (status.Written + status.DeadLetters >= data.Documents)
                {
                    break;
                }

                if (Stopwatch.GetElapsedTime(started) > timeout)
                {
                    throw new TimeoutException(
                        $"{source.Name}: {status.Written} of {data.Documents} documents durable after {timeout} (consumed {status.Consumed}, error: {status.Error ?? "none"})");
                }

                await Task.Delay(PollInterval).ConfigureAwait(false);
            }

            var end = Stopwatch.GetTimestamp();
            var cpu = ProcessCpu.Now() - cpuStarted;
            var threads = ProcessCpu.Between(threadsStarted, ProcessCpu.ByThreadName());
            var allocated = GC.GetTotalAllocatedBytes(precise: false) - allocatedBefore;
            var collections = (GC.CollectionCount(0) - gen0Before, GC.CollectionCount(1) - gen1Before, GC.CollectionCount(2) - gen2Before);
            var storeCommits = store.CommitCount - commitsBefore;
            if (first == 0)
            {
                first = started;
            }

            using (var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
            {
                await source.StopAsync(stop.Token).ConfigureAwait(false);
            }

            var stats = store.GetStats();
            if (status.DeadLetters > 0 || stats.DocumentCount != data.Documents)
            {
                throw new InvalidOperationException(
                    $"{source.Name}: the store holds {stats.DocumentCount} of {data.Documents} documents and {stats.DeadLetterCount} dead letters (last error: {status.Error ?? "none"})");
            }

            var batching = status.Batching;
            return new IngestionMeasurement(data.Documents, data.Bytes, Stopwatch.GetElapsedTime(started, first), Stopwatch.GetElapsedTime(first, end))
            {
                CommitP50 = batching.CommitLatencyPercentile(50),
                CommitP99 = batching.CommitLatencyPercentile(99),
                BatchP50 = batching.ItemsPercentile(50),
                Batches = batching.Commits,
                ClosedByDelay = batching.ClosedBy(BatchCloseReason.Delay),
                ProducerWaits = batching.ProducerWaits,
                ProcessCpu = cpu,
                ThreadCpu = threads,
                StoreCommits = storeCommits,
                AllocatedBytes = allocated,
                Collections = collections,
            };
        }
    }
}
