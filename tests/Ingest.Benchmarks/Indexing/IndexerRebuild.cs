using System.Globalization;
using Ingest.Benchmarks.Storage.Workloads;
using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Storage;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// A rebuild through the engine's own indexing loop (<see cref="Indexer"/>, as the index set runs it): a
/// fresh index directory, the loop started, the clock stopped when the loop has committed the store's last etag.
/// The batch count and peak batch memory are the indexer's own statistics.
/// </summary>
internal static class IndexerRebuild
{
    public static WorkloadMeasurement Run(DocumentStore store, string directory, long documents, BatchLimits limits, out string detail)
    {
        var rebuildDirectory = Path.Combine(directory, $"index-rebuild-{Guid.NewGuid():N}");
        var options = new IndexingOptions
        {
            BatchMemoryBudgetBytes = limits.MemoryBudgetBytes,
            MaxBatchDuration = limits.MaxDuration,
            MaxBatchDocuments = limits.MaxDocuments,
        };
        try
        {
            var storage = IndexStorage.Open(rebuildDirectory, OrderIndex.Definition, new StorageOptions { SyncMode = SyncMode.Durable });
            var runner = new Indexer(store, storage, "index/benchmark-rebuild", options, NullLogger.Instance);
            try
            {
                var lastEtag = store.LastEtag;
                var measurement = Measure.Operations(documents, () =>
                {
                    runner.Start();
                    if (!runner.WaitForEtagAsync(lastEtag, TimeSpan.FromHours(1), CancellationToken.None).GetAwaiter().GetResult())
                    {
                        throw new InvalidOperationException($"The index runner did not reach etag {lastEtag:N0}: {runner.Error ?? "timed out"}");
                    }
                });
                detail = string.Create(
                    CultureInfo.InvariantCulture,
                    $"{runner.BatchesClosed} batches through Indexer (peak {runner.PeakBatchMemoryBytes / (1024.0 * 1024):N0} MiB)");
                return measurement with { Value = runner.BatchesClosed };
            }
            finally
            {
                runner.DisposeAsync().AsTask().GetAwaiter().GetResult();
                store.UnregisterConsumerAsync("index/benchmark-rebuild").GetAwaiter().GetResult();
            }
        }
        finally
        {
            Directory.Delete(rebuildDirectory, recursive: true);
        }
    }
}
