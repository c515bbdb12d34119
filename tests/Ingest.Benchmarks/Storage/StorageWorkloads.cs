using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Storage;

internal static class StorageWorkloads
{
    /// <summary>The workloads, in the order they run on each system (and rows of the table).</summary>
    public static IReadOnlyList<StorageWorkload> All { get; } =
    [
        new BulkLoadWorkload(),
        new BatchedDurableWorkload(),
        new SingleDurableWorkload(),
        new RandomReadWorkload(threads: 1),
        new RandomReadWorkload(threads: 2),
        new ReadTransactionOpenCloseWorkload(),
        new DeleteHalfWorkload(sortedBatch: true),
        new DeleteHalfWorkload(sortedBatch: false),
        new PostingListAddWorkload(),
        new PostingListDecodeWorkload(),
        new PostingListBytesPerIdWorkload(),
        new PostingListRemoveWorkload(sortedBatch: true),
        new PostingListRemoveWorkload(sortedBatch: false),
    ];
}
