using System.Diagnostics;

namespace Ingest.Benchmarks.Queries;

/// <summary>Runs a workload on N threads (a session each) for a fixed time and takes the latency of every query.</summary>
internal static class QueryTimer
{
    public static QueryMeasurement Measure(IQuerySystem system, QueryWorkload workload, int threads, TimeSpan duration, int minQueries)
    {
        var sessions = new IQuerySession[threads];
        for (var t = 0; t < threads; t++)
        {
            sessions[t] = system.OpenSession();
        }

        try
        {
            // Warm-up: the first runs compile and fill caches on every session.
            foreach (var session in sessions)
            {
                for (var i = 0; i < 3; i++)
                {
                    session.Run(workload);
                }
            }

            var latencies = new List<double>[threads];
            var clock = Stopwatch.StartNew();
            var deadline = duration;
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
                        while (clock.Elapsed < deadline || own.Count < minQueries)
                        {
                            var start = Stopwatch.GetTimestamp();
                            session.Run(workload);
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
                throw new InvalidOperationException($"{system.Name} failed {workload.Name}: {failure.Message}", failure);
            }

            var elapsed = clock.Elapsed.TotalSeconds;
            var all = latencies.SelectMany(l => l).Order().ToArray();
            return new QueryMeasurement(
                workload.Name,
                system.Name,
                threads,
                Percentile(all, 0.50),
                Percentile(all, 0.99),
                all.Length / elapsed,
                all.Length);
        }
        finally
        {
            foreach (var session in sessions)
            {
                session.Dispose();
            }
        }
    }

    private static double Percentile(double[] sorted, double p) => sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];
}
