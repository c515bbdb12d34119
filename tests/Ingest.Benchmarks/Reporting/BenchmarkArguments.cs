using System.Globalization;

namespace Ingest.Benchmarks.Reporting;

/// <summary>
/// The options every end-to-end benchmark command takes:
/// <c>[--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c>.
/// </summary>
internal sealed record BenchmarkArguments
{
    public bool Quick { get; init; }

    public string? JsonPath { get; init; }

    /// <summary>Each system gets a fresh directory under this one, deleted after its run.</summary>
    public string BaseDirectory { get; init; } = Path.GetTempPath();

    /// <summary>Names of the systems to run; empty means all.</summary>
    public IReadOnlySet<string> Systems { get; init; } = new HashSet<string>();

    /// <summary>Names of the workloads to run; empty means all.</summary>
    public IReadOnlySet<string> Workloads { get; init; } = new HashSet<string>();

    public int Seed { get; init; }

    /// <summary>Parses <paramref name="args"/>; unknown options, systems or workloads are errors that say what is known.</summary>
    public static bool TryParse(
        string[] args,
        int defaultSeed,
        IReadOnlyCollection<string> knownSystems,
        IReadOnlyCollection<string> knownWorkloads,
        out BenchmarkArguments parsed,
        out string error)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(knownSystems);
        ArgumentNullException.ThrowIfNull(knownWorkloads);
        parsed = new BenchmarkArguments { Seed = defaultSeed };
        error = string.Empty;
        for (var i = 0; i < args.Length; i++)
        {
            var arg = args[i];
            var value = i + 1 < args.Length ? args[i + 1] : null;
            switch (arg)
            {
                case "--quick":
                    parsed = parsed with { Quick = true };
                    continue;
                case "--json" when value != null:
                    parsed = parsed with { JsonPath = value };
                    break;
                case "--dir" when value != null:
                    parsed = parsed with { BaseDirectory = value };
                    break;
                case "--systems" when value != null:
                    parsed = parsed with { Systems = Names(value) };
                    break;
                case "--workloads" when value != null:
                    parsed = parsed with { Workloads = Names(value) };
                    break;
                case "--seed" when int.TryParse(value, CultureInfo.InvariantCulture, out var seed):
                    parsed = parsed with { Seed = seed };
                    break;
                default:
                    error = $"unknown or incomplete option: {arg}";
                    return false;
            }

            i++;
        }

        var unknown = parsed.Systems.Except(knownSystems).Concat(parsed.Workloads.Except(knownWorkloads)).ToList();
        if (unknown.Count > 0)
        {
            error = $"unknown systems or workloads: {string.Join(", ", unknown)}; " +
                $"systems are {string.Join(", ", knownSystems)}; workloads are {string.Join(", ", knownWorkloads)}";
            return false;
        }

        return true;
    }

    /// <summary>A comma-separated list of names, trimmed, empty entries dropped.</summary>
    public static HashSet<string> Names(string list) =>
        list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToHashSet(StringComparer.Ordinal);
}
