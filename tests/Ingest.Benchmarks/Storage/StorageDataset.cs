namespace Ingest.Benchmarks.Storage;

/// <summary>
/// Every input of every workload, generated once from a fixed seed and handed to each system unchanged.
/// Each part has a Random of its own (seed + n), so resizing one part leaves the others' bytes as they were.
/// </summary>
internal sealed class StorageDataset
{
    public const int DefaultSeed = 20_251_121;

    private readonly Lazy<PostingListData> _postingLists;

    private StorageDataset(StorageSizes sizes, int seed)
    {
        Sizes = sizes;
        Seed = seed;
        Loaded = KeyValueSet.Random(new Random(seed), sizes.LoadedItems, StorageSizes.KeySize, StorageSizes.ValueSize);
        Batched = KeyValueSet.Random(new Random(seed + 1), sizes.DurableBatches * sizes.DurableBatchSize, StorageSizes.KeySize, StorageSizes.ValueSize);
        Single = KeyValueSet.Random(new Random(seed + 2), sizes.SingleTransactions, StorageSizes.KeySize, StorageSizes.ValueSize);

        var readRandom = new Random(seed + 3);
        ReadOrder = new int[sizes.Reads];
        for (var i = 0; i < ReadOrder.Length; i++)
        {
            ReadOrder[i] = readRandom.Next(sizes.LoadedItems);
        }

        // The keys are random, so those at even positions are a random half of the tree.
        var half = new int[sizes.LoadedItems / 2];
        for (var i = 0; i < half.Length; i++)
        {
            half[i] = i * 2;
        }

        DeleteInRandomOrder = Loaded.Keys.Select(half);
        DeleteInSortedOrder = DeleteInRandomOrder.Sorted();

        AppendBlock = new byte[StorageSizes.AppendBlockSize];
        new Random(seed + 4).NextBytes(AppendBlock);

        _postingLists = new Lazy<PostingListData>(() => PostingListData.Generate(sizes.PostingListIds, seed + 5));
    }

    public StorageSizes Sizes { get; }

    public int Seed { get; }

    /// <summary>bulk-load's items; also the content of the read tree and of each tree the delete workloads halve.</summary>
    public KeyValueSet Loaded { get; }

    /// <summary>batched-durable's items, taken DurableBatchSize at a time.</summary>
    public KeyValueSet Batched { get; }

    public KeyValueSet Single { get; }

    /// <summary>Indexes into <see cref="Loaded"/>, drawn uniformly with replacement.</summary>
    public int[] ReadOrder { get; }

    /// <summary>Half of <see cref="Loaded"/>'s keys in generation (random) order: what one-by-one deletes.</summary>
    public FixedSizeRecords DeleteInRandomOrder { get; }

    /// <summary>The same keys ascending: what the sorted batch deletes.</summary>
    public FixedSizeRecords DeleteInSortedOrder { get; }

    public byte[] AppendBlock { get; }

    /// <summary>Generated on first use, so runs without a posting-list system do not pay for 10M ids.</summary>
    public PostingListData PostingLists => _postingLists.Value;

    public static StorageDataset Generate(StorageSizes sizes, int seed) => new(sizes, seed);
}
