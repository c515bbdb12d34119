using Ingest.Query;
using Ingest.Storage;

namespace Ingest.Server.Hosting;

/// <summary>
/// <c>Ingest:Storage:CompactOnStart</c>: before the store and the indexes open, each of their storage environments is
/// compacted (<see cref="StorageEnvironment.Compact"/>: the live pages copied into a fresh data file that replaces the
/// old one). A compaction that fails (a full disk, a damaged file) leaves that environment as it was and start-up goes on.
/// </summary>
internal static partial class StartupCompaction
{
    public static void Run(string dataDirectory, string storeDirectory, ILogger logger)
    {
        var directories = new List<string>();
        if (File.Exists(Path.Combine(storeDirectory, "data.ingest")))
        {
            directories.Add(storeDirectory);
        }

        var indexes = Path.Combine(dataDirectory, QueryEngine.IndexesFolder);
        if (Directory.Exists(indexes))
        {
            foreach (var index in Directory.EnumerateDirectories(indexes))
            {
                if (File.Exists(Path.Combine(index, "data.ingest")))
                {
                    directories.Add(index);
                }
            }
        }

        long before = 0, after = 0;
        foreach (var directory in directories)
        {
            try
            {
                var result = StorageEnvironment.Compact(directory);
                before += result.BytesBefore;
                after += result.BytesAfter;
                LogCompacted(logger, directory, result.BytesBefore, result.BytesAfter, result.Elapsed.TotalMilliseconds);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or StorageCorruptionException)
            {
                // A damaged store is reported by the open that follows, as without compaction.
                LogNotCompacted(logger, directory, ex.Message);
            }
        }

        LogTotal(logger, directories.Count, before, after);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Compacted '{Directory}': {BytesBefore} -> {BytesAfter} bytes in {Milliseconds:F0} ms")]
    private static partial void LogCompacted(ILogger logger, string directory, long bytesBefore, long bytesAfter, double milliseconds);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Not compacted '{Directory}' (it is unchanged and opens as before): {Reason}")]
    private static partial void LogNotCompacted(ILogger logger, string directory, string reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Ingest:Storage:CompactOnStart: {Count} storage environments, {BytesBefore} -> {BytesAfter} bytes")]
    private static partial void LogTotal(ILogger logger, int count, long bytesBefore, long bytesAfter);
}
