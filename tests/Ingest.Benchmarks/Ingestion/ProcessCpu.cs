using System.Diagnostics;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>The CPU time this process has used so far, all threads together.</summary>
internal static class ProcessCpu
{
    public static TimeSpan Now()
    {
        using var process = Process.GetCurrentProcess();
        return process.TotalProcessorTime;
    }
}
