using System.CommandLine;
using Ingest.Storage;

namespace Ingest.Cli.Store;

/// <summary>
/// Finds and opens a stopped server's store for the offline commands: the argument is the server's
/// data directory (the store is its <c>store</c> folder) or the store folder itself. Never creates one.
/// </summary>
internal static class StoreDirectory
{
    private const string DataFileName = "data.ingest";
    private const string StoreFolder = DataDirectoryLayout.StoreFolder;

    /// <summary>The <c>DIR</c> argument the store commands take.</summary>
    public static Argument<string> CreateArgument() => new("DIR")
    {
        Description = "The server's data directory (Ingest:DataDirectory), or its store folder.",
    };

    public static string Resolve(string path)
    {
        var full = Path.GetFullPath(path);
        if (File.Exists(Path.Combine(full, DataFileName)))
        {
            return full;
        }

        var nested = Path.Combine(full, StoreFolder);
        if (File.Exists(Path.Combine(nested, DataFileName)))
        {
            return nested;
        }

        throw new CommandFailedException(ExitCodes.Usage, $"no store in '{full}': expected {DataFileName} there or in its {StoreFolder} folder (pass the server's data directory)");
    }

    /// <summary>Opens the store, turning "the server has it open" and "the journal is damaged" into messages that say what to do.</summary>
    public static StorageEnvironment Open(string directory, StorageOptions options, string damageHint, string busyHint = "Stop the server first (or use its POST /admin/verify).")
    {
        try
        {
            return StorageEnvironment.Open(directory, options);
        }
        catch (StorageCorruptionException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"the store in '{directory}' is damaged: {ex.Message}{damageHint}", ex);
        }
        catch (IOException ex) when (ex is not DiskFullException)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"cannot open the store in '{directory}': {ex.Message} {busyHint}", ex);
        }
    }
}
