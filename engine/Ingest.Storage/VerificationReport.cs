namespace Ingest.Storage;

/// <summary>What <see cref="StorageEnvironment.Verify"/> checked and the damaged pages it found.</summary>
/// <param name="TransactionId">The snapshot that was checked.</param>
/// <param name="PagesChecked">Pages whose checksum and structure were checked.</param>
/// <param name="TreesChecked">Trees walked, the directory of trees included.</param>
/// <param name="Damaged">Each damaged page, in the order found; empty when the store is sound.</param>
public sealed record VerificationReport(long TransactionId, long PagesChecked, int TreesChecked, IReadOnlyList<DamagedPage> Damaged)
{
    public bool IsClean => Damaged.Count == 0;
}
