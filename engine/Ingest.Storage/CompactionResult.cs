namespace Ingest.Storage;

/// <summary>What <see cref="StorageEnvironment.Compact"/> did.</summary>
/// <param name="BytesBefore">The data file and journal files before, in bytes.</param>
/// <param name="BytesAfter">The same after.</param>
/// <param name="TreesCopied">Trees copied into the new data file.</param>
/// <param name="Elapsed">How long the compaction took.</param>
public sealed record CompactionResult(long BytesBefore, long BytesAfter, long TreesCopied, TimeSpan Elapsed)
{
    /// <summary>Bytes the compaction gave back to the file system (negative if the files grew).</summary>
    public long BytesFreed => BytesBefore - BytesAfter;
}
