using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// <c>budgets [--check FILE] [--json PATH] [--dir DIR] [--paths a,b] [--seed N]</c>: bytes allocated per operation on
/// the hot paths; with <c>--check</c>, exit 1 when a path is over its budget, a budget has no measurement, or a
/// measured path has no budget.
/// </summary>
internal static class BudgetsCommand
{
    public const string Usage = "budgets [--check FILE] [--json PATH] [--dir DIR] [--paths NAME,...] [--seed N]";

    public const int DefaultSeed = 20_261_126;

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!TryParse(args, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        IReadOnlyList<AllocationBudget>? budgets = null;
        if (options.CheckPath is { } checkPath)
        {
            try
            {
                budgets = AllocationBudgetFile.Load(checkPath);
            }
            catch (InvalidDataException e)
            {
                Console.Error.WriteLine(e.Message);
                return 2;
            }
        }

        var root = Path.Combine(options.BaseDirectory, $"ingest-bench-budgets-{Guid.NewGuid():N}");
        Directory.CreateDirectory(root);
        MachineInfo.Describe(root).Print(Console.Out);
        var total = Stopwatch.StartNew();
        List<AllocationMeasurement> measured;
        try
        {
            measured = MeasureAll(root, options);
        }
        catch (ArgumentException e)
        {
            Console.Error.WriteLine(e.Message);
            return 2;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"measured {measured.Count} paths in {total.Elapsed.TotalSeconds:N1} s"));
        Console.WriteLine();

        var verdicts = budgets is null ? null : AllocationBudgetCheck.Compare(measured, budgets, options.Paths);
        BudgetsReport.WriteTable(measured, verdicts);
        if (options.JsonPath is { } jsonPath)
        {
            BudgetsReport.WriteJson(jsonPath, measured, verdicts);
            Console.WriteLine($"wrote {jsonPath}");
        }

        if (verdicts is null)
        {
            return 0;
        }

        var passed = AllocationBudgetCheck.AllPassed(verdicts);
        Console.WriteLine(passed
            ? $"allocation budgets: every path within its budget ({options.CheckPath})"
            : $"allocation budgets: FAILED against {options.CheckPath}; see the rows not marked ok. How to update a budget: docs/benchmarks.md, \"Allocation budgets\".");
        return passed ? 0 : 1;
    }

    private static List<AllocationMeasurement> MeasureAll(string root, BudgetsOptions options)
    {
        using var storage = new StorageProbes(Path.Combine(root, "storage"), options.Seed);
        using var documents = new DocumentProbes(Path.Combine(root, "documents"), options.Seed);
        using var ingestion = new IngestionProbes(options.Seed);
        var probes = storage.Probes.Concat(documents.Probes).Concat(ingestion.Probes).ToList();
        if (options.Paths is { } selected)
        {
            var unknown = selected.Where(path => !probes.Exists(probe => probe.Path == path)).ToList();
            if (unknown.Count > 0)
            {
                throw new ArgumentException(
                    $"unknown paths: {string.Join(", ", unknown)}; paths are {string.Join(", ", probes.Select(probe => probe.Path))}");
            }

            probes.RemoveAll(probe => !selected.Contains(probe.Path));
        }

        var measured = new List<AllocationMeasurement>();
        foreach (var probe in probes)
        {
            var measurement = AllocationRunner.Measure(probe);
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{measurement.Path,-32} {measurement.BytesPerOp,12:N1} B per {measurement.Operation} (highest round {measurement.HighestBytesPerOp:N1}; {measurement.Counter} counter)"));
            measured.Add(measurement);
        }

        return measured;
    }

    private static bool TryParse(string[] args, out BudgetsOptions options, out string error)
    {
        options = new BudgetsOptions { Seed = DefaultSeed };
        error = string.Empty;
        for (var i = 0; i < args.Length; i++)
        {
            var value = i + 1 < args.Length ? args[i + 1] : null;
            switch (args[i])
            {
                case "--check" when value != null:
                    options = options with { CheckPath = value };
                    break;
                case "--json" when value != null:
                    options = options with { JsonPath = value };
                    break;
                case "--dir" when value != null:
                    options = options with { BaseDirectory = value };
                    break;
                case "--paths" when value != null:
                    options = options with { Paths = BenchmarkArguments.Names(value) };
                    break;
                case "--seed" when int.TryParse(value, CultureInfo.InvariantCulture, out var seed):
                    options = options with { Seed = seed };
                    break;
                default:
                    error = $"unknown or incomplete option: {args[i]}";
                    return false;
            }

            i++;
        }

        return true;
    }
}
