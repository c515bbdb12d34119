namespace Ingest.Contracts.Http;

/// <summary>What one storage environment (the store, or one index) takes on disk, in <c>/stats</c>.</summary>
/// <param name="DataFileBytes">The data file.</param>
/// <param name="JournalBytes">The journal files (they start small and grow with the write rate).</param>
/// <param name="FreePageBytes">Bytes inside the data file holding no live page (freed pages, reused by later writes, and growth ahead of use); a compaction gives them back.</param>
public sealed record DiskSpaceEntry(long DataFileBytes, long JournalBytes, long FreePageBytes)
{
    /// <summary>The data file and the journal files.</summary>
    public long TotalBytes => DataFileBytes + JournalBytes;
}
