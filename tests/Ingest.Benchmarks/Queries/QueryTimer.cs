using System.Diagnostics;
using Ingest.Benchmarks.Ingestion;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// Runs a cell (a workload as one row of a system answers it, on N threads with a session each) for a fixed time and
/// takes the latency of every query, after an untimed warm-up of the same cell until the JIT has settled
/// (<see cref="JitWarmup"/>): rounds of <paramref name="WarmupRound"/> of the cell's own queries on its own threads, at
/// least <see cref="MinWarmupRounds"/>.
/// </summary>
internal sealed record QueryTimer(TimeSpan Duration, int MinQueries, TimeSpan WarmupRound)
{
    /// <summary>Two: a first round's methods are compiled on the querying threads, and only then does tiering start.</summary>
    public const int MinWarmupRounds = 2;

    public QueryMeasurement Measure(IQuerySystem system, QueryWorkload workload, string row, int threads)
    {
        var sessions = new IQuerySession[threads];
        for (var t = 0; t < threads; t++)
        {
            sessions[t] = system.OpenSession();
        }

        try
        {
            var warm = JitWarmup.Run(ProcessCpu.TieredCompilation, () => RunFor(sessions, workload, row, WarmupRound, 1), MinWarmupRounds);
            var clock = Stopwatch.StartNew();
            var latencies = RunFor(sessions, workload, row, Duration, MinQueries);
            var elapsed = clock.Elapsed.TotalSeconds;
            var all = latencies.SelectMany(l => l).Order().ToArray();
            return new QueryMeasurement(
                workload.Name,
                row,
                threads,
                Percentile(all, 0.50),
                Percentile(all, 0.99),
                all.Length / elapsed,
                all.Length)
            {
                Warmup = warm,
            };
        }
        finally
        {
            foreach (var session in sessions)
            {
                session.Dispose();
            }
        }
    }

    /// <summary>Each session on a thread of its own, running the query until <paramref name="duration"/> has passed and it ran <paramref name="minQueries"/>.</summary>
    private static List<double>[] RunFor(IQuerySession[] sessions, QueryWorkload workload, string row, TimeSpan duration, int minQueries)
    {
        var threads = sessions.Length;
        var latencies = new List<double>[threads];
        var clock = Stopwatch.StartNew();
        var workers = new Thread[threads];
        var failures = new Exception?[threads];
        for (var t = 0; t < threads; t++)
        {
            var own = latencies[t] = new List<double>(4096);
            var session = sessions[t];
            var index = t;
            workers[t] = new Thread(() =>
            {
                try
                {
                    while (clock.Elapsed < duration || own.Count < minQueries)
                    {
                        var start = Stopwatch.GetTimestamp();
                        session.Run(workload, row);
                        own.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
                    }
                }
#pragma warning disable CA1031 // Reported on the calling thread: an exception on a worker thread would end the process.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    failures[index] = e;
                }
            });
            workers[t].Start();
        }

        foreach (var worker in workers)
        {
            worker.Join();
        }

        if (failures.FirstOrDefault(f => f != null) is { } failure)
        {
            throw new InvalidOperationException($"{row} failed {workload.Name}: {failure.Message}", failure);
        }

        return latencies;
    }

    private static double Percentile(double[] sorted, double p) => sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];
}
