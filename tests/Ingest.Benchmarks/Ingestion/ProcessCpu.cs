using System.Diagnostics;
using System.Globalization;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// The CPU time this process has used so far: all threads together, and on Linux per thread name
/// (from <c>/proc/self/task</c>), so a run can say which thread was busy: the consume thread, the
/// writer, the store's commit thread, librdkafka's threads, the thread pool, the JIT.
/// </summary>
internal static class ProcessCpu
{
    private const string Tasks = "/proc/self/task";

    public static TimeSpan Now()
    {
        using var process = Process.GetCurrentProcess();
        return process.TotalProcessorTime;
    }

    /// <summary>CPU time per thread name so far (threads of one name added up); empty where /proc is not there.</summary>
    public static Dictionary<string, TimeSpan> ByThreadName() => ByThreadName(Tasks);

    /// <summary>As <see cref="ByThreadName()"/>, for another process (a server the benchmark started).</summary>
    public static Dictionary<string, TimeSpan> ByThreadName(int processId) =>
        ByThreadName($"/proc/{processId.ToString(CultureInfo.InvariantCulture)}/task");

    /// <summary>CPU time of this process's tiered-compilation thread so far: while it grows, the JIT has not settled.</summary>
    public static TimeSpan TieredCompilation() => TieredCompilation(ByThreadName());

    /// <summary>As <see cref="TieredCompilation()"/>, for another process (a server the benchmark started).</summary>
    public static TimeSpan TieredCompilation(int processId) => TieredCompilation(ByThreadName(processId));

    private static TimeSpan TieredCompilation(Dictionary<string, TimeSpan> byName)
    {
        var jit = TimeSpan.Zero;
        foreach (var (thread, cpu) in byName)
        {
            // ".NET Tiered Compilation Worker" (Linux cuts thread names at 15 characters: ".NET Tiered Com").
            jit += thread.StartsWith(".NET Tiered", StringComparison.Ordinal) ? cpu : TimeSpan.Zero;
        }

        return jit;
    }

    private static Dictionary<string, TimeSpan> ByThreadName(string tasks)
    {
        var byName = new Dictionary<string, TimeSpan>(StringComparer.Ordinal);
        if (!Directory.Exists(tasks))
        {
            return byName;
        }

        var ticksPerSecond = 100.0; // USER_HZ, 100 on every Linux this runs on
        foreach (var task in Directory.EnumerateDirectories(tasks))
        {
            string stat;
            try
            {
                stat = File.ReadAllText(Path.Combine(task, "stat"));
            }
            catch (IOException)
            {
                continue; // the thread ended meanwhile
            }

            // "tid (name) state ppid ...": the name may hold spaces and parentheses, so cut at the last ')'.
            var open = stat.IndexOf('(', StringComparison.Ordinal);
            var close = stat.LastIndexOf(')');
            if (open < 0 || close < open)
            {
                continue;
            }

            var name = stat[(open + 1)..close];
            var fields = stat[(close + 2)..].Split(' ');
            if (fields.Length < 13
                || !long.TryParse(fields[11], NumberStyles.Integer, CultureInfo.InvariantCulture, out var user)
                || !long.TryParse(fields[12], NumberStyles.Integer, CultureInfo.InvariantCulture, out var system))
            {
                continue;
            }

            byName[name] = byName.GetValueOrDefault(name) + TimeSpan.FromSeconds((user + system) / ticksPerSecond);
        }

        return byName;
    }

    /// <summary>What each thread name used between two <see cref="ByThreadName"/> snapshots, busiest first (threads that ended meanwhile are missing).</summary>
    public static List<(string Thread, TimeSpan Cpu)> Between(Dictionary<string, TimeSpan> before, Dictionary<string, TimeSpan> after)
    {
        var used = new List<(string Thread, TimeSpan Cpu)>(after.Count);
        foreach (var (name, cpu) in after)
        {
            var delta = cpu - before.GetValueOrDefault(name);
            if (delta > TimeSpan.Zero)
            {
                used.Add((name, delta));
            }
        }

        used.Sort(static (a, b) => b.Cpu.CompareTo(a.Cpu));
        return used;
    }
}
