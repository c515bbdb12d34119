using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Storage.Workloads;
using Ingest.Documents;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The Ingest side of every workload, on one document store holding the orders: a build from scratch (kept for the
/// churn), the capped and unbounded rebuilds into fresh directories, then the churn re-indexed by two copies of the
/// built index, one with sorted posting list updates and one applying each removal and addition on its own.
/// </summary>
internal static class IngestRuns
{
    public static List<IndexingResult> Run(string directory, OrderDataset data, ChurnPlan churn, IndexingSizes sizes, IReadOnlyList<IndexingWorkload> workloads, WarmUp warmUp)
    {
        var wanted = workloads.Select(w => w.Name).ToHashSet(StringComparer.Ordinal);
        var results = new List<IndexingResult>();
        Console.WriteLine($"[{IndexingCommand.Ingest}] Ingest.Indexing IndexStorage, SyncMode.Durable, one commit per batch; the backlog read from the document store's changes feed");
        for (var round = 0; round < WarmUp.Rounds; round++)
        {
            using (var warmStore = IndexingCommand.OpenStore(Path.Combine(directory, $"warm-up-documents-{round}")))
            using (var warmIndex = new IngestIndexer(warmStore, Path.Combine(directory, $"warm-up-index-{round}")))
            {
                WriteAll(warmStore, warmUp.Data, churn: null, sizes.LoadBatch);
                warmIndex.CatchUp(BatchLimits.Unbounded);
                WriteAll(warmStore, warmUp.Data, warmUp.Churn, sizes.LoadBatch);
                warmIndex.CatchUp(BatchLimits.Unbounded);
            }

            WarmUp.LetTheJitCatchUp();
        }

        var storeDirectory = Path.Combine(directory, "documents");
        Settle(storeDirectory, store => WriteAll(store, data, churn: null, sizes.LoadBatch));
        var builtDirectory = Path.Combine(directory, "index-build");
        using (var store = IndexingCommand.OpenStore(storeDirectory))
        using (var built = new IngestIndexer(store, builtDirectory))
        {
            var build = Measure.Operations(data.Count, () => Expect(built.CatchUp(BatchLimits.Unbounded), data.Count));
            build = build with { Value = built.LiveBytes() / (double)data.Count };
            Add(results, IndexingWorkload.Build, build, $"{Batches(built)}; {IndexPageBreakdown.Describe(built.Environment, data.Count)}");

            if (wanted.Contains(IndexingWorkload.RebuildCapped))
            {
                Add(results, IndexingWorkload.RebuildCapped, IndexerRebuild.Run(store, directory, data.Count, BatchLimits.Capped, out var detail), detail);
            }

            if (wanted.Contains(IndexingWorkload.RebuildUnbounded))
            {
                Add(results, IndexingWorkload.RebuildUnbounded, IndexerRebuild.Run(store, directory, data.Count, BatchLimits.Unbounded, out var detail), detail);
            }
        }

        if (wanted.Contains(IndexingWorkload.Churn) || wanted.Contains(IndexingWorkload.ChurnOneByOne))
        {
            // The same built index twice, so both churn runs start from the same pages.
            var copyDirectory = Path.Combine(directory, "index-one-by-one");
            CopyDirectory(builtDirectory, copyDirectory);
            Settle(storeDirectory, store => WriteAll(store, data, churn, sizes.LoadBatch));
            using var store = IndexingCommand.OpenStore(storeDirectory);
            using var sorted = new IngestIndexer(store, builtDirectory);
            using var oneByOne = new IngestIndexer(store, copyDirectory, postingsOneByOne: true);
            var changes = churn.Changes.Count;
            Add(results, IndexingWorkload.Churn, Churn(sorted, changes, out var sortedDetail), sortedDetail);
            if (wanted.Contains(IndexingWorkload.ChurnOneByOne))
            {
                Add(results, IndexingWorkload.ChurnOneByOne, Churn(oneByOne, changes, out var oneByOneDetail), oneByOneDetail);
            }
        }

        return [.. results.Where(r => wanted.Contains(r.Workload))];
    }

    /// <summary>
    /// Writes to the document store off the clock, then closes it, so its flusher has written everything out
    /// before a measurement starts (instead of competing with it for the two cores).
    /// </summary>
    private static void Settle(string storeDirectory, Action<DocumentStore> write)
    {
        using var store = IndexingCommand.OpenStore(storeDirectory);
        write(store);
    }

    private static WorkloadMeasurement Churn(IngestIndexer indexer, int changes, out string detail)
    {
        var (updates, leaves) = (indexer.PostingListUpdates, indexer.PostingListLeavesMerged);
        var batches = indexer.BatchesClosed;
        var measurement = Measure.Operations(changes, () => Expect(indexer.CatchUp(BatchLimits.Unbounded), changes));
        detail = string.Create(
            CultureInfo.InvariantCulture,
            $"{indexer.BatchesClosed - batches} batches, {indexer.PostingListUpdates - updates:N0} posting list updates merging {indexer.PostingListLeavesMerged - leaves:N0} leaves");
        return measurement;
    }

    private static string Batches(IngestIndexer indexer) => string.Create(
        CultureInfo.InvariantCulture,
        $"{indexer.BatchesClosed} batches (largest {indexer.LargestBatch:N0} docs, peak {indexer.PeakBatchBytes / (1024.0 * 1024):N0} MiB), {indexer.PostingListUpdates:N0} posting list updates merging {indexer.PostingListLeavesMerged:N0} leaves");

    private static void Add(List<IndexingResult> results, string workload, WorkloadMeasurement measurement, string detail)
    {
        results.Add(new IndexingResult(workload, IndexingCommand.Ingest, measurement));
        Console.WriteLine(IndexingReport.Describe(IndexingCommand.Ingest, workload, measurement, detail));
    }

    /// <summary>Writes every order (<paramref name="churn"/> null) or the churn's updates and deletes, in batches, in dataset order.</summary>
    private static void WriteAll(DocumentStore store, OrderDataset data, ChurnPlan? churn, int batchSize)
    {
        var batch = new WriteBatch();
        var count = churn?.Changes.Count ?? data.Count;
        for (var i = 0; i < count; i++)
        {
            if (churn is null)
            {
                batch.Put(data.Ids[i], OrderDataset.Collection, data.Bodies[i]);
            }
            else if (churn.Changes[i].NewBody is { } body)
            {
                batch.Put(data.Ids[churn.Changes[i].Index], OrderDataset.Collection, body);
            }
            else
            {
                batch.Delete(data.Ids[churn.Changes[i].Index]);
            }

            if (batch.Count == batchSize || i == count - 1)
            {
                store.Write(batch);
                batch.Clear();
            }
        }
    }

    private static void Expect(long read, long expected)
    {
        if (read != expected)
        {
            throw new InvalidOperationException($"The index read {read:N0} changes; {expected:N0} were expected.");
        }
    }

    private static void CopyDirectory(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.EnumerateFiles(from))
        {
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        }
    }
}
