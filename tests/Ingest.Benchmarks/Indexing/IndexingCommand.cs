using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Reporting;
using Ingest.Benchmarks.Storage.Workloads;
using Ingest.Documents;
using Ingest.Storage;

namespace Ingest.Benchmarks.Indexing;

/// <summary><c>indexing [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c></summary>
internal static class IndexingCommand
{
    public const string Usage =
        "indexing [--quick] [--json PATH] [--dir DIR] [--systems ingest,lucene,sqlite] [--workloads NAME,...] [--seed N]";

    public const string Ingest = "ingest";
    public const string Lucene = "lucene";
    public const string Sqlite = "sqlite";

    public const int DefaultSeed = 20_250_401; // the documents benchmark's: the same orders

    public static IReadOnlyList<string> Systems { get; } = [Ingest, Lucene, Sqlite];

    public static int Run(string[] args)
    {
        if (!BenchmarkArguments.TryParse(args, DefaultSeed, [.. Systems], [.. IndexingWorkload.All.Select(w => w.Name)], out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var systems = Systems.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s)).ToList();
        var workloads = IndexingWorkload.All.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w.Name)).ToList();
        var sizes = options.Quick ? IndexingSizes.Quick : IndexingSizes.Full;

        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        var generation = Stopwatch.StartNew();
        var data = OrderDataset.Generate(sizes.Documents, 0, options.Seed);
        var churn = ChurnPlan.Create(data, sizes);
        var warmUpData = OrderDataset.Generate(WarmUp.Documents, 0, options.Seed + 1);
        var warmUp = new WarmUp(warmUpData, ChurnPlan.Create(warmUpData, sizes));
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"sizes: {sizes.Name}, seed {options.Seed}: {data.Count:N0} orders, {data.TotalBytes / (double)data.Count:N0} bytes of JSON on average; churn {churn.Updates:N0} updates, {churn.Deletes:N0} deletes; generated in {generation.Elapsed.TotalSeconds:N1} s"));
        Console.WriteLine($"index:   {OrderIndex.Describe()}");
        Console.WriteLine();

        var total = Stopwatch.StartNew();
        var results = new List<IndexingResult>();
        foreach (var system in systems)
        {
            var directory = Path.Combine(options.BaseDirectory, $"ingest-bench-indexing-{system}-{Guid.NewGuid():N}");
            Directory.CreateDirectory(directory);
            try
            {
                var measured = system == Ingest
                    ? IngestRuns.Run(directory, data, churn, sizes, workloads, warmUp)
                    : BaselineRuns.Run(system, directory, data, churn, workloads, warmUp);
                results.AddRange(measured);
            }
#pragma warning disable CA1031 // One failing system is reported and the run goes on with the next.
            catch (Exception e)
#pragma warning restore CA1031
            {
                results.AddRange(workloads.Select(w => new IndexingResult(w.Name, system, new WorkloadFailed(e))));
                Console.WriteLine($"[{system}] FAILED: {e}");
            }
            finally
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        IndexingReport.WriteTable(workloads, results);
        if (options.JsonPath is { } path)
        {
            IndexingReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Outcome is WorkloadFailed) ? 1 : 0;
    }

    /// <summary>The document store the Ingest index reads; loading and churning it is not measured.</summary>
    internal static DocumentStore OpenStore(string directory) =>
        DocumentStore.Open(directory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe } });
}
