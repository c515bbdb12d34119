using System.Globalization;
using Ingest.Benchmarks.Storage.Workloads;
using Spectre.Console;

namespace Ingest.Benchmarks.Reporting;

/// <summary>What every benchmark table shares: the console it is written to and the ratio cells.</summary>
internal static class ReportFormat
{
    /// <summary>
    /// The console, at least <paramref name="width"/> columns wide when the output is redirected: Spectre assumes 80
    /// columns when it cannot ask the terminal, and the tables need more.
    /// </summary>
    public static IAnsiConsole Console(int width)
    {
        var console = AnsiConsole.Console;
        if (System.Console.IsOutputRedirected)
        {
            console.Profile.Width = Math.Max(console.Profile.Width, width);
        }

        return console;
    }

    /// <summary>"1.23x": <paramref name="mine"/>'s rate over <paramref name="theirs"/>, or "-" when either is missing.</summary>
    public static string Ratio(WorkloadOutcome? mine, WorkloadOutcome? theirs) =>
        (mine, theirs) is (WorkloadMeasurement { OpsPerSec: { } a }, WorkloadMeasurement { OpsPerSec: { } b and > 0 })
            ? string.Create(CultureInfo.InvariantCulture, $"{a / b:0.00}x")
            : "-";
}
