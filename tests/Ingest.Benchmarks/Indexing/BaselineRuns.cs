using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Indexing;

/// <summary>Lucene.NET or SQLite: a build from scratch, then the churn on the built index (the rebuild rows are the Ingest loop's own).</summary>
internal static class BaselineRuns
{
    public static List<IndexingResult> Run(string system, string directory, OrderDataset data, ChurnPlan churn, IReadOnlyList<IndexingWorkload> workloads, WarmUp warmUp)
    {
        var wanted = workloads.Select(w => w.Name).ToHashSet(StringComparer.Ordinal);
        var results = new List<IndexingResult>();
        for (var round = 0; round < WarmUp.Rounds; round++)
        {
            var warmDirectory = Path.Combine(directory, $"warm-up-{round}");
            Directory.CreateDirectory(warmDirectory);
            using (var warm = Open(system, warmDirectory))
            {
                warm.Build(warmUp.Data);
                warm.Churn(warmUp.Data, warmUp.Churn);
            }

            WarmUp.LetTheJitCatchUp();
        }

        using var indexer = Open(system, directory);
        Console.WriteLine($"[{system}] {indexer.Description}");
        var build = Measure.Operations(data.Count, () => indexer.Build(data));
        build = build with { Value = indexer.IndexBytes() / (double)data.Count };
        Add(results, system, IndexingWorkload.Build, build);
        if (wanted.Contains(IndexingWorkload.Churn))
        {
            Add(results, system, IndexingWorkload.Churn, Measure.Operations(churn.Changes.Count, () => indexer.Churn(data, churn)));
        }

        return [.. results.Where(r => wanted.Contains(r.Workload))];
    }

    private static IBaselineIndexer Open(string system, string directory) =>
        system == IndexingCommand.Lucene ? new LuceneIndexer(directory) : new SqliteIndexer(directory);

    private static void Add(List<IndexingResult> results, string system, string workload, WorkloadMeasurement measurement)
    {
        results.Add(new IndexingResult(workload, system, measurement));
        Console.WriteLine(IndexingReport.Describe(system, workload, measurement, string.Empty));
    }
}
