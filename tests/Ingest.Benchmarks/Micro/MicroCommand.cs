using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;

namespace Ingest.Benchmarks.Micro;

internal static class MicroCommand
{
    public const string Usage = "micro [BenchmarkDotNet arguments]";

    public static int Run(string[] args)
    {
        // In process by default: the out-of-process toolchain generates and builds a project per run
        // (inside this repository, under its warnings-as-errors build settings), which on two shared
        // cores costs more than the benchmarks. Artifacts go under bin/, not the working directory.
        if (!args.Contains("--inProcess", StringComparer.OrdinalIgnoreCase) && !args.Contains("-i"))
        {
            args = [.. args, "--inProcess"];
        }

        var config = DefaultConfig.Instance.WithArtifactsPath(Path.Combine(AppContext.BaseDirectory, "BenchmarkDotNet.Artifacts"));
        var summaries = BenchmarkSwitcher.FromAssembly(typeof(MicroCommand).Assembly).Run(args, config);
        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }
}
