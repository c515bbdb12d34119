using Ingest.Benchmarks.Storage;
using Ingest.Storage;
using Ingest.Storage.Trees;

namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// The storage engine's hot paths on one durable environment, called straight (not through the storage benchmark's
/// wrappers, whose own objects would be counted): 24-byte random keys and 150-byte values, as in the storage benchmark.
/// </summary>
internal sealed class StorageProbes : IDisposable
{
    private const int LoadedItems = 100_000;
    private const int ReadTransactionsPerRound = 200_000;
    private const int ReadsPerRound = 200_000;
    private const int BatchSize = 1_000;
    private const int BatchesPerRound = 10;
    private const int CommitsPerRound = 300;

    // Write paths: their trees grow each round, so a fixed warm-up keeps the measured state the same on any machine.
    private const int WarmupRounds = 5;

    private readonly StorageEnvironment _environment;
    private readonly KeyValueSet _loaded;
    private readonly int[] _readOrder;
    private readonly byte[] _key = new byte[StorageSizes.KeySize];
    private readonly byte[] _value = new byte[StorageSizes.ValueSize];

    // Fresh keys for the write paths come from this, into _key: new keys every round, nothing allocated.
    private readonly Random _keys;

    public StorageProbes(string directory, int seed)
    {
        _environment = StorageEnvironment.Open(directory, BudgetStorageOptions());
        var random = new Random(seed);
        _loaded = KeyValueSet.Random(random, LoadedItems, StorageSizes.KeySize, StorageSizes.ValueSize);
        _readOrder = new int[ReadsPerRound];
        for (var i = 0; i < _readOrder.Length; i++)
        {
            _readOrder[i] = random.Next(LoadedItems);
        }

        random.NextBytes(_value);
        _keys = new Random(seed + 1);
        using var write = _environment.BeginWrite();
        var tree = write.CreateTree("read");
        for (var i = 0; i < _loaded.Count; i++)
        {
            tree.Put(_loaded.Keys[i], _loaded.Values[i]);
        }

        write.CreateTree("batched");
        write.CreateTree("single");
        write.Commit();
    }

    public IEnumerable<AllocationProbe> Probes =>
    [
        new("storage/read-txn-open-dispose", "open+dispose", AllocationCounter.Thread, OpenAndDisposeReadTransactions),
        new("storage/point-read", "read", AllocationCounter.Thread, PointReads),
        new("storage/batched-put-durable", "item", AllocationCounter.Thread, BatchedPuts, WarmupRounds),
        new("storage/single-commit-durable", "commit", AllocationCounter.Thread, SingleCommits, WarmupRounds),
    ];

    public void Dispose() => _environment.Dispose();

    /// <summary>
    /// Durable, with the flusher started by the amount of committed pages only (the default threshold), not by the
    /// clock: with the default 1 s interval, whether a round met a flush depended on how fast the machine ran it.
    /// </summary>
    internal static StorageOptions BudgetStorageOptions() => new() { SyncMode = SyncMode.Durable, FlushInterval = TimeSpan.FromHours(1) };

    private long OpenAndDisposeReadTransactions()
    {
        for (var i = 0; i < ReadTransactionsPerRound; i++)
        {
            using var read = _environment.BeginRead();
        }

        return ReadTransactionsPerRound;
    }

    // One read transaction and one tree handle per round (the handle is the one object OpenTree allocates, a few
    // dozen bytes over 200,000 reads); the figure is the lookups'.
    private long PointReads()
    {
        using var read = _environment.BeginRead();
        var tree = read.OpenTree("read") ?? throw new InvalidOperationException("the read tree is missing");
        var found = 0;
        foreach (var index in _readOrder)
        {
            if (tree.TryGet(_loaded.Keys[index], out var value) && value.Length == StorageSizes.ValueSize)
            {
                found++;
            }
        }

        return found == _readOrder.Length ? found : throw new InvalidOperationException($"{_readOrder.Length - found} point reads found nothing");
    }

    // A durable transaction of BatchSize new random keys, per item: BeginWrite, OpenTree, the puts and the commit.
    private long BatchedPuts()
    {
        for (var batch = 0; batch < BatchesPerRound; batch++)
        {
            using var write = _environment.BeginWrite();
            var tree = write.OpenTree("batched")!;
            for (var i = 0; i < BatchSize; i++)
            {
                _keys.NextBytes(_key);
                tree.Put(_key, _value);
            }

            write.Commit();
        }

        return BatchesPerRound * BatchSize;
    }

    // One new key per durable transaction, per commit.
    private long SingleCommits()
    {
        for (var i = 0; i < CommitsPerRound; i++)
        {
            using var write = _environment.BeginWrite();
            _keys.NextBytes(_key);
            write.OpenTree("single")!.Put(_key, _value);
            write.Commit();
        }

        return CommitsPerRound;
    }
}
