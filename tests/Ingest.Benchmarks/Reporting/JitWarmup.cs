using System.Diagnostics;
using System.Globalization;

namespace Ingest.Benchmarks.Reporting;

/// <summary>
/// An untimed warm-up in rounds of a cell's own work until the JIT has settled: a round in which the tiered-compilation
/// threads used under 5% of the round's time, at most <see cref="MaxRounds"/> rounds. Their CPU time is read in the
/// kernel's 10 ms ticks, so a round should last 250 ms or more (one tick is then under 5%). Tiered compilation recompiles a
/// hot method in the background after it has been called 30 times with no new method compiled for 100 ms, so a fixed
/// count of warm-up calls either wastes time or times the compiler (a profile of a queries cell timed right after its
/// load had 35% of the process's samples on that thread; a cluster node's, half).
/// </summary>
internal static class JitWarmup
{
    public const int MaxRounds = 10;

    /// <summary>The JIT's share of a round under which it counts as settled.</summary>
    public const double QuietShare = 0.05;

    /// <param name="jitCpu">The CPU time of the tiered-compilation threads so far (<see cref="Ingestion.ProcessCpu.TieredCompilation()"/>), summed over the processes that do the work.</param>
    /// <param name="round">One round of the cell's work.</param>
    /// <param name="minRounds">
    /// Rounds to run whatever the JIT did: 2 where rounds are short. The first calls of a method are compiled (tier 0) on
    /// the thread that calls it, not the tiered-compilation thread, which starts recompiling only after 100 ms without
    /// new methods: a first short round looks quiet on that thread however much is left to compile.
    /// </param>
    public static async Task<Result> RunAsync(Func<TimeSpan> jitCpu, Func<Task> round, int minRounds = 1)
    {
        ArgumentNullException.ThrowIfNull(jitCpu);
        ArgumentNullException.ThrowIfNull(round);
        var jit = TimeSpan.Zero;
        var elapsed = TimeSpan.Zero;
        for (var i = 1; i <= MaxRounds; i++)
        {
            var before = jitCpu();
            var clock = Stopwatch.StartNew();
            await round().ConfigureAwait(false);
            elapsed = clock.Elapsed;
            jit = jitCpu() - before;
            if (i >= minRounds && jit < elapsed * QuietShare)
            {
                return new Result(i, true, jit, elapsed);
            }
        }

        return new Result(MaxRounds, false, jit, elapsed);
    }

    /// <summary>As <see cref="RunAsync"/>, for work that runs on the calling thread.</summary>
    public static Result Run(Func<TimeSpan> jitCpu, Action round, int minRounds = 1)
    {
        ArgumentNullException.ThrowIfNull(round);
        return RunAsync(
            jitCpu,
            () =>
            {
                round();
                return Task.CompletedTask;
            },
            minRounds).GetAwaiter().GetResult();
    }

    /// <summary>How many rounds it took; <paramref name="Settled"/> false when the JIT was still busy in the last allowed round.</summary>
    internal readonly record struct Result(int Rounds, bool Settled, TimeSpan LastRoundJit, TimeSpan LastRound)
    {
        public string Describe() => Settled
            ? string.Create(CultureInfo.InvariantCulture, $"warm after {Rounds} round(s) (JIT {LastRoundJit.TotalMilliseconds:N0} ms in the last, {LastRound.TotalMilliseconds:N0} ms long)")
            : string.Create(CultureInfo.InvariantCulture, $"the JIT was still compiling after {Rounds} warm-up rounds ({LastRoundJit.TotalMilliseconds:N0} ms of the last {LastRound.TotalMilliseconds:N0} ms); the figures include some of it");
    }
}
