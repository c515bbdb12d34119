using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Documents;

/// <summary>
/// The workloads, in the order they run on one system: the batched load fills the store the
/// others read, and the batched delete empties it last.
/// </summary>
internal static class DocumentWorkloads
{
    public const string PutBatched = "put-batched";
    public const string DeleteBatched = "delete-batched";
    private const int ReadsPerSnapshot = 1_000;

    public static IReadOnlyList<DocumentWorkload> All { get; } =
    [
        new(PutBatched, "docs/s", ">= 3x sqlite", RunPutBatched),
        new("get-by-id-random-1t", "gets/s", ">= 2x sqlite", (s, d, z) => RunGets(s, d, 1)),
        new("get-by-id-random-2t", "gets/s", ">= 2x sqlite", (s, d, z) => RunGets(s, d, 2)),
        new("changes-scan", "docs/s", ">= 1M docs/s", RunChangesScan),
        new("put-concurrent-small", "batches/s", string.Empty, RunConcurrentSmall),
        new(DeleteBatched, "docs/s", string.Empty, RunDeleteBatched),
    ];

    /// <summary>Loads the dataset without measuring, for runs that skip put-batched.</summary>
    public static void Load(IDocumentSystem system, OrderDataset data, DocumentsSizes sizes)
    {
        for (var start = 0; start < data.Count; start += sizes.BatchSize)
        {
            system.PutBatch(data, start, Math.Min(sizes.BatchSize, data.Count - start));
        }
    }

    private static WorkloadMeasurement RunPutBatched(IDocumentSystem system, OrderDataset data, DocumentsSizes sizes)
    {
        var measurement = Measure.Operations(data.Count, () => Load(system, data, sizes));
        return measurement with { Value = data.TotalBytes / measurement.Elapsed.TotalSeconds / 1e6 };
    }

    private static WorkloadMeasurement RunGets(IDocumentSystem system, OrderDataset data, int threads)
    {
        // The load's last flush is the load's work: at a flush threshold of 16,384 pages it wrote 9,600-15,100 pages
        // during the first seconds of get-by-id-random-1t and took 6-12% off the reader (docs/benchmarks/documents.md).
        system.Settle();
        var sessions = Enumerable.Range(0, threads).Select(_ => system.OpenReadSession()).ToArray();
        try
        {
            var missing = 0;
            var measurement = Measure.Operations((long)threads * data.Lookups.Length, () =>
            {
                var workers = sessions.Select((session, t) => new Thread(() =>
                {
                    var lookups = data.Lookups;
                    var offset = t * (lookups.Length / threads);
                    for (var i = 0; i < lookups.Length; i += ReadsPerSnapshot)
                    {
                        session.Begin();
                        var end = Math.Min(lookups.Length, i + ReadsPerSnapshot);
                        for (var j = i; j < end; j++)
                        {
                            if (session.Get(lookups[(j + offset) % lookups.Length]) < 0)
                            {
                                Interlocked.Increment(ref missing);
                            }
                        }

                        session.End();
                    }
                })).ToList();
                workers.ForEach(w => w.Start());
                workers.ForEach(w => w.Join());
            });
            if (missing > 0)
            {
                throw new InvalidOperationException($"{missing} lookups found no document.");
            }

            return measurement;
        }
        finally
        {
            foreach (var session in sessions)
            {
                session.Dispose();
            }
        }
    }

    private static WorkloadMeasurement RunChangesScan(IDocumentSystem system, OrderDataset data, DocumentsSizes sizes)
    {
        system.Settle();
        system.ScanChanges(); // warm-up: the first pass pages the store in
        Measure.Settle();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var clock = Stopwatch.StartNew();
        long scanned = 0;
        do
        {
            var count = system.ScanChanges();
            if (count < data.Count)
            {
                throw new InvalidOperationException($"The scan saw {count} of {data.Count} documents.");
            }

            scanned += count;
        }
        while (clock.Elapsed.TotalSeconds < sizes.MinScanSeconds);

        return WorkloadMeasurement.FromRate(scanned, clock.Elapsed, GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore);
    }

    private static WorkloadMeasurement RunConcurrentSmall(IDocumentSystem system, OrderDataset data, DocumentsSizes sizes)
    {
        var writers = sizes.ConcurrentWriters;
        var perWriter = sizes.BatchesPerWriter;
        return Measure.Operations((long)writers * perWriter, () =>
        {
            var threads = Enumerable.Range(0, writers).Select(w => new Thread(() =>
            {
                for (var i = 0; i < perWriter; i++)
                {
                    var id = string.Create(CultureInfo.InvariantCulture, $"Small/{w}-{i}");
                    system.PutSingle(id, data.Bodies[((w * perWriter) + i) % data.Count]);
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());
        });
    }

    private static WorkloadMeasurement RunDeleteBatched(IDocumentSystem system, OrderDataset data, DocumentsSizes sizes) =>
        Measure.Operations(data.Count, () =>
        {
            for (var start = 0; start < data.Count; start += sizes.BatchSize)
            {
                system.DeleteBatch(data, start, Math.Min(sizes.BatchSize, data.Count - start));
            }
        });
}
