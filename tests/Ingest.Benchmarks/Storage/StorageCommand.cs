using System.Diagnostics;
using Ingest.Benchmarks.Reporting;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Storage;

/// <summary><c>storage [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c></summary>
internal static class StorageCommand
{
    public const string Usage =
        "storage [--quick] [--json PATH] [--dir DIR] [--systems ingest,lmdb,sqlite,disk] [--workloads NAME,...] [--seed N]";

    public static int Run(string[] args)
    {
        var known = (Systems: StorageSystems.All.Select(s => s.Name).ToList(), Workloads: StorageWorkloads.All.Select(w => w.Name).ToList());
        if (!BenchmarkArguments.TryParse(args, StorageDataset.DefaultSeed, known.Systems, known.Workloads, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var systems = StorageSystems.All.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s.Name)).ToList();
        var workloads = StorageWorkloads.All.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w.Name)).ToList();
        var sizes = options.Quick ? StorageSizes.Quick : StorageSizes.Full;

        Directory.CreateDirectory(options.BaseDirectory);
        var machine = MachineInfo.Describe(options.BaseDirectory);
        machine.Print(Console.Out);
        Console.WriteLine($"sizes: {sizes.Name}, seed {options.Seed}");

        var generation = Stopwatch.StartNew();
        var data = StorageDataset.Generate(sizes, options.Seed);
        Console.WriteLine($"data generated in {generation.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();

        var total = Stopwatch.StartNew();
        var results = new StorageBenchmarkRunner(data, Console.Out).Run(systems, workloads, options.BaseDirectory);
        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();

        ResultTable.Write(workloads, StorageSystems.All.Select(s => s.Name).ToList(), results);

        if (options.JsonPath is { } path)
        {
            ResultJson.Write(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Outcome is WorkloadFailed) ? 1 : 0;
    }
}
