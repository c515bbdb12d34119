using System.Diagnostics;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Lifecycle;

/// <summary>
/// <c>lifecycle [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c>: compression,
/// expiration and disk footprint, each beside what a user would compare it with, in one run.
/// </summary>
internal static class LifecycleCommand
{
    public const string Usage =
        "lifecycle [--quick] [--json PATH] [--dir DIR] [--systems NAME,...] [--workloads NAME,...] [--seed N]";

    public const int DefaultSeed = 20_261_127;

    public static int Run(string[] args)
    {
        var sections = LifecycleSections.All;
        var knownSystems = sections.SelectMany(s => s.Systems).Distinct().ToList();
        var knownWorkloads = sections.SelectMany(s => s.Workloads).Distinct().ToList();
        if (!BenchmarkArguments.TryParse(args, DefaultSeed, knownSystems, knownWorkloads, out var options, out var error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        Console.WriteLine($"sizes: {(options.Quick ? "quick" : "full")}, seed {options.Seed}");
        Console.WriteLine();

        var context = new LifecycleContext(options.Quick, options.BaseDirectory, options.Seed, options.Systems, options.Workloads, Console.Out);
        var total = Stopwatch.StartNew();
        var results = new List<(ILifecycleSection Section, LifecycleSectionResult Result)>();
        foreach (var section in sections)
        {
            if (!section.Workloads.Any(context.Runs))
            {
                continue;
            }

            Console.WriteLine($"== {section.Name}");
            LifecycleSectionResult result;
            try
            {
                result = section.Run(context);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                // One broken section must not hide the others' figures; the exit code still says it failed.
                result = LifecycleSectionResult.Failed(section.Name, e);
            }

            results.Add((section, result));
            Console.WriteLine();
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        // The load is printed again after the run: a figure taken while the machine was busy is not worth recording.
        Console.WriteLine($"load after the run: {MachineInfo.Describe(options.BaseDirectory).LoadAverage}");
        Console.WriteLine();
        LifecycleReport.WriteTable(results);
        if (options.JsonPath is { } path)
        {
            BenchmarkJsonFile.Write(path, results.SelectMany(r => r.Result.Rows).Select(LifecycleReport.Record));
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Result.Errors.Count > 0) ? 1 : 0;
    }
}
