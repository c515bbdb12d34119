using System.Diagnostics;
using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Storage;

/// <summary>
/// An untimed warm-up, the same for every key-value system, before its first workload: a small copy of the key-value
/// workloads (one-transaction load, batched commits, point reads, sorted and one-by-one deletes), in a scratch
/// directory of its own that is deleted afterwards, so the measured store starts exactly as it would without it.
/// Native code (LMDB, SQLite) runs compiled from the first call; managed code (Ingest, and each baseline's own .NET
/// wrapper) starts in the JIT's quick tier and is recompiled once it is hot. A quick run is too short to amortize that,
/// so without this round it would measure the JIT rather than the store.
/// </summary>
internal static class StorageWarmup
{
    public const int Items = 4_000;
    public const int Rounds = 3;

    /// <summary>More calls than the JIT's 30 before a method is recompiled optimized.</summary>
    public const int Slices = 40;

    /// <summary>The JIT counts calls only after 100 ms without new methods to compile, then compiles in the background.</summary>
    private static readonly TimeSpan _pause = TimeSpan.FromMilliseconds(200);

    /// <summary>Runs the warm-up on a fresh instance of the system; false (and nothing done) when it is not a key-value store.</summary>
    public static bool Run(Func<string, IStorageSystem> open, string baseDirectory, int seed, out TimeSpan elapsed)
    {
        ArgumentNullException.ThrowIfNull(open);
        var clock = Stopwatch.StartNew();
        var directory = Path.Combine(baseDirectory, $"ingest-bench-warmup-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            using var system = open(directory);
            if (system is not IKeyValueStore store)
            {
                elapsed = TimeSpan.Zero;
                return false;
            }

            var items = KeyValueSet.Random(new Random(seed), Items, StorageSizes.KeySize, StorageSizes.ValueSize);
            var evens = new int[Items / 2];
            var odds = new int[Items / 2];
            for (var i = 0; i < evens.Length; i++)
            {
                (evens[i], odds[i]) = (i * 2, (i * 2) + 1);
            }

            var sortedSlices = Slice(items.Keys.Select(evens).Sorted());
            var oddKeys = items.Keys.Select(odds);
            for (var round = 0; round < Rounds; round++)
            {
                RunRound(store, store.OpenTree($"warmup-{round}"), items, sortedSlices, oddKeys);
                Thread.Sleep(_pause);
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }

        elapsed = clock.Elapsed;
        return true;
    }

    private static FixedSizeRecords[] Slice(FixedSizeRecords sorted)
    {
        var slices = new FixedSizeRecords[Slices];
        var per = sorted.Count / Slices;
        for (var s = 0; s < Slices; s++)
        {
            var indexes = new int[per];
            for (var i = 0; i < per; i++)
            {
                indexes[i] = (s * per) + i;
            }

            slices[s] = sorted.Select(indexes);
        }

        return slices;
    }

    private static void RunRound(IKeyValueStore store, TreeId tree, KeyValueSet items, FixedSizeRecords[] sortedSlices, FixedSizeRecords oddKeys)
    {
        WorkloadContext.LoadInOneTransaction(store, tree, items);
        var batch = items.Count / Slices;
        for (var first = 0; first < items.Count; first += batch)
        {
            using var transaction = store.BeginWrite();
            for (var i = first; i < first + batch; i++)
            {
                transaction.Put(tree, items.Keys[i], items.Values[i]);
            }

            transaction.Commit();
        }

        Span<byte> value = stackalloc byte[StorageSizes.ValueSize * 2];
        using (var session = store.OpenReadSession())
        {
            for (var i = 0; i < items.Count; i++)
            {
                session.BeginRead();
                Expect(session.Read(tree, items.Keys[i], value) == StorageSizes.ValueSize, store, "a loaded key is missing");
                session.EndRead();
            }
        }

        store.Settle();
        using (var transaction = store.BeginWrite())
        {
            var deleted = 0;
            foreach (var slice in sortedSlices)
            {
                deleted += transaction.DeleteSorted(tree, slice);
            }

            for (var i = 0; i < oddKeys.Count; i++)
            {
                deleted += transaction.Delete(tree, oddKeys[i]) ? 1 : 0;
            }

            Expect(deleted == items.Count, store, $"deleted {deleted} of {items.Count} keys");
            transaction.Commit();
        }
    }

    private static void Expect(bool condition, IKeyValueStore store, string what)
    {
        if (!condition)
        {
            throw new InvalidOperationException($"{store.Name} warm-up: {what}.");
        }
    }
}
