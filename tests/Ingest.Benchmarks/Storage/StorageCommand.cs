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
        if (!TryParse(args, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var systems = StorageSystems.All.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s.Name)).ToList();
        var workloads = StorageWorkloads.All.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w.Name)).ToList();

        Directory.CreateDirectory(options.BaseDirectory);
        var machine = MachineInfo.Describe(options.BaseDirectory);
        machine.Print(Console.Out);
        Console.WriteLine($"sizes: {options.Sizes.Name}, seed {options.Seed}");

        var generation = Stopwatch.StartNew();
        var data = StorageDataset.Generate(options.Sizes, options.Seed);
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

    private static bool TryParse(string[] args, out StorageOptions options, out string error)
    {
        options = new StorageOptions();
        error = string.Empty;
        for (var i = 0; i < args.Length; i++)
        {
            var arg = args[i];
            string? Value()
            {
                return i + 1 < args.Length ? args[++i] : null;
            }

            switch (arg)
            {
                case "--quick":
                    options = options with { Quick = true };
                    break;
                case "--json":
                    options = options with { JsonPath = Value() ?? Missing(arg, out error) };
                    break;
                case "--dir":
                    options = options with { BaseDirectory = Value() ?? Missing(arg, out error) };
                    break;
                case "--systems":
                    options = options with { Systems = Names(Value() ?? Missing(arg, out error)) };
                    break;
                case "--workloads":
                    options = options with { Workloads = Names(Value() ?? Missing(arg, out error)) };
                    break;
                case "--seed" when int.TryParse(Value(), out var seed):
                    options = options with { Seed = seed };
                    break;
                default:
                    error = $"unknown or incomplete option: {arg}";
                    return false;
            }

            if (error.Length > 0)
            {
                return false;
            }
        }

        var unknownSystems = options.Systems.Except(StorageSystems.All.Select(s => s.Name)).ToList();
        var unknownWorkloads = options.Workloads.Except(StorageWorkloads.All.Select(w => w.Name)).ToList();
        if (unknownSystems.Count > 0 || unknownWorkloads.Count > 0)
        {
            error = $"unknown systems or workloads: {string.Join(", ", unknownSystems.Concat(unknownWorkloads))}; " +
                $"workloads are {string.Join(", ", StorageWorkloads.All.Select(w => w.Name))}";
            return false;
        }

        return true;
    }

    private static string Missing(string option, out string error)
    {
        error = $"{option} needs a value";
        return string.Empty;
    }

    private static HashSet<string> Names(string list) =>
        list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(StringComparer.Ordinal);
}
