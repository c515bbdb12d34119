using System.Diagnostics;

namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// Point reads of keys drawn uniformly from the loaded tree, split evenly over the threads, each
/// thread in one read transaction of its own. The clock runs from releasing all threads together
/// until the last one finishes. Every 1024th value read is compared with what was written.
/// </summary>
internal sealed class RandomReadWorkload : KeyValueWorkload
{
    private const int VerifyMask = 1023;
    private const int WarmupReads = 20_000;

    private readonly int _threads;

    public RandomReadWorkload(int threads)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(threads);
        _threads = threads;
    }

    public override string Name => $"random-read-{_threads}t";

    public override string Unit => "reads/s";

    public override string Target => _threads == 1 ? ">= 0.8x lmdb" : $">= {0.9 * _threads:0.0}x own 1t";

    protected override WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context)
    {
        var tree = context.EnsureLoadedTree(store);
        var order = context.Data.ReadOrder;
        var loaded = context.Data.Loaded;

        using var ready = new CountdownEvent(_threads);
        using var start = new ManualResetEventSlim();
        var finishedAt = new long[_threads];
        var failures = new Exception?[_threads];
        var workers = new Thread[_threads];
        for (var t = 0; t < _threads; t++)
        {
            var index = t;
            var first = (int)((long)order.Length * t / _threads);
            var end = (int)((long)order.Length * (t + 1) / _threads);
            workers[t] = new Thread(() =>
            {
                var signaled = false;
                try
                {
                    using var session = store.OpenReadSession();

                    // Off the clock: JIT tiers, the session's statement caches, the page cache.
                    session.BeginRead();
                    ReadRange(session, tree, loaded, order, first, Math.Min(end, first + WarmupReads));
                    session.EndRead();

                    ready.Signal();
                    signaled = true;
                    start.Wait();

                    session.BeginRead();
                    ReadRange(session, tree, loaded, order, first, end);
                    session.EndRead();
                    finishedAt[index] = Stopwatch.GetTimestamp();
                }
#pragma warning disable CA1031 // Any failure of a reader thread is reported on the runner's thread.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    failures[index] = e;
                    if (!signaled)
                    {
                        ready.Signal();
                    }
                }
            })
            {
                IsBackground = true,
                Name = $"reader-{t}",
            };
            workers[t].Start();
        }

        ready.Wait();
        Measure.Settle();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var startedAt = Stopwatch.GetTimestamp();
        start.Set();
        foreach (var worker in workers)
        {
            worker.Join();
        }

        var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
        if (failures.FirstOrDefault(f => f is not null) is { } failure)
        {
            throw new InvalidOperationException($"A reader thread of {store.Name} failed: {failure.Message}", failure);
        }

        return WorkloadMeasurement.FromRate(order.Length, Stopwatch.GetElapsedTime(startedAt, finishedAt.Max()), allocated);
    }

    private static void ReadRange(IReadSession session, TreeId tree, KeyValueSet loaded, int[] order, int first, int end)
    {
        Span<byte> value = stackalloc byte[StorageSizes.ValueSize * 2];
        for (var i = first; i < end; i++)
        {
            var item = order[i];
            var length = session.Read(tree, loaded.Keys[item], value);
            if (length < 0)
            {
                throw new InvalidOperationException($"Key #{item} of the loaded tree was not found.");
            }

            if ((i & VerifyMask) == 0 && !value[..length].SequenceEqual(loaded.Values[item]))
            {
                throw new InvalidOperationException($"Key #{item} of the loaded tree returned a wrong value.");
            }
        }
    }
}
