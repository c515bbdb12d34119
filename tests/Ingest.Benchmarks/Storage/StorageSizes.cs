namespace Ingest.Benchmarks.Storage;

/// <summary>How big each workload is. <see cref="Full"/> is the specification; <see cref="Quick"/> keeps a whole run under a minute.</summary>
internal sealed record StorageSizes
{
    public const int KeySize = 24;
    public const int ValueSize = 150;
    public const int AppendBlockSize = 4096;

    public static StorageSizes Full { get; } = new()
    {
        Name = "full",
        LoadedItems = 1_000_000,
        DurableBatches = 1_000,
        DurableBatchSize = 1_000,
        SingleTransactions = 10_000,
        AppendSyncs = 10_000,
        Reads = 1_000_000,
        ReadTransactions = 1_000_000,
        PostingListIds = 10_000_000,
    };

    public static StorageSizes Quick { get; } = new()
    {
        Name = "quick",
        LoadedItems = 100_000,
        DurableBatches = 50,
        DurableBatchSize = 1_000,
        SingleTransactions = 1_000,
        AppendSyncs = 1_000,
        Reads = 200_000,
        ReadTransactions = 200_000,
        PostingListIds = 1_000_000,
    };

    public required string Name { get; init; }

    /// <summary>Items of bulk-load, of the tree the reads run on, and of each tree the delete workloads halve.</summary>
    public required int LoadedItems { get; init; }

    public required int DurableBatches { get; init; }

    public required int DurableBatchSize { get; init; }

    public required int SingleTransactions { get; init; }

    /// <summary>4 KiB appends, each followed by fdatasync, of the raw disk baseline.</summary>
    public required int AppendSyncs { get; init; }

    /// <summary>Point reads in total, split evenly between the threads.</summary>
    public required int Reads { get; init; }

    public required int ReadTransactions { get; init; }

    /// <summary>Dense ids (0 to N-1) in the posting list workloads.</summary>
    public required int PostingListIds { get; init; }
}
