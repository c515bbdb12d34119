using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Documents;

/// <summary><c>documents [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c></summary>
internal static class DocumentsCommand
{
    public const string Usage =
        "documents [--quick] [--json PATH] [--dir DIR] [--systems ingest,sqlite] [--workloads NAME,...] [--seed N]";

    public const int DefaultSeed = 20_250_401;

    public static int Run(string[] args)
    {
        var known = (Systems: DocumentSystems.All.Select(s => s.Name).ToList(), Workloads: DocumentWorkloads.All.Select(w => w.Name).ToList());
        if (!BenchmarkArguments.TryParse(args, DefaultSeed, known.Systems, known.Workloads, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var systems = DocumentSystems.All.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s.Name)).ToList();
        var workloads = DocumentWorkloads.All.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w.Name)).ToList();
        var sizes = options.Quick ? DocumentsSizes.Quick : DocumentsSizes.Full;

        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        var generation = Stopwatch.StartNew();
        var data = OrderDataset.Generate(sizes.Documents, sizes.Lookups, options.Seed);
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"sizes: {sizes.Name}, seed {options.Seed}: {data.Count:N0} orders, {data.TotalBytes / (double)data.Count:N0} bytes of JSON on average, generated in {generation.Elapsed.TotalSeconds:N1} s"));
        Console.WriteLine();

        var total = Stopwatch.StartNew();
        var results = new List<DocumentResult>();
        foreach (var (name, open) in systems)
        {
            if (workloads.Any(w => w.Name == DocumentWorkloads.PutBatched))
            {
                WarmUp(name, open, data, sizes, options.BaseDirectory);
            }

            var directory = Path.Combine(options.BaseDirectory, $"ingest-bench-documents-{name}-{Guid.NewGuid():N}");
            Directory.CreateDirectory(directory);
            try
            {
                using var system = open(directory);
                Console.WriteLine($"[{name}] {system.Description}");
                if (!workloads.Any(w => w.Name == DocumentWorkloads.PutBatched))
                {
                    DocumentWorkloads.Load(system, data, sizes);
                }

                foreach (var workload in workloads)
                {
                    var outcome = RunOne(workload, system, data, sizes);
                    results.Add(new DocumentResult(workload, name, outcome));
                    Console.WriteLine(DocumentsReport.Describe(name, workload, outcome));
                }
            }
            finally
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        DocumentsReport.WriteTable(workloads, results);
        if (options.JsonPath is { } path)
        {
            DocumentsReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Outcome is WorkloadFailed) ? 1 : 0;
    }

    /// <summary>
    /// Every system loads the same first <see cref="DocumentsSizes.WarmupBatches"/> batches into a throwaway
    /// store before its measured load, unmeasured, so put-batched compares steady states: without it the
    /// quick run's 40 batches timed mostly the JIT compiling the Ingest store's code (SQLite is native,
    /// its .NET wrapper is small), not how fast either system puts documents.
    /// </summary>
    private static void WarmUp(string name, Func<string, IDocumentSystem> open, OrderDataset data, DocumentsSizes sizes, string baseDirectory)
    {
        var directory = Path.Combine(baseDirectory, $"ingest-bench-documents-warmup-{name}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            using var system = open(directory);
            var count = Math.Min(data.Count, sizes.WarmupBatches * sizes.BatchSize);
            var clock = Stopwatch.StartNew();
            for (var start = 0; start < count; start += sizes.BatchSize)
            {
                system.PutBatch(data, start, Math.Min(sizes.BatchSize, count - start));
            }

            // The cold rate stays visible: it is what a freshly started process sees.
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"[{name}] warm-up (not measured): {count:N0} docs into a throwaway store, cold, at {count / clock.Elapsed.TotalSeconds:N0} docs/s"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static WorkloadOutcome RunOne(DocumentWorkload workload, IDocumentSystem system, OrderDataset data, DocumentsSizes sizes)
    {
        try
        {
            return workload.Run(system, data, sizes);
        }
#pragma warning disable CA1031 // One failing workload is reported and the run goes on with the next.
        catch (Exception e)
#pragma warning restore CA1031
        {
            return new WorkloadFailed(e);
        }
    }
}
