using System.CommandLine;
using System.Diagnostics;
using Ingest.Cli.Store;
using Ingest.Storage;
using Ingest.Storage.Backup;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest restore FILE --data-dir DIR</c>: restores a backup into a server's data directory. It restores into a
/// scratch directory beside DIR, checking every page and entry checksum and then every restored environment's
/// trees, and only then moves it into place, so a damaged backup leaves DIR as it was. A non-empty DIR is refused
/// unless <c>--force</c>, and never while a server holds it.
/// </summary>
internal sealed class RestoreCommand : Command
{
    private const string Examples = """
        Examples:
          ingest restore nightly.backup --data-dir /var/lib/ingest
          ingest restore nightly.backup --data-dir /var/lib/ingest --force     (replace what is there; stop the server first)
        """;

    private readonly Argument<string> _file = new("FILE")
    {
        Description = "The backup file ('ingest backup --out').",
    };

    private readonly Option<string> _dataDirectory = new Option<string>("--data-dir")
    {
        Description = "The data directory to restore into (the server's Ingest:DataDirectory); created if absent.",
        HelpName = "DIR",
        Required = true,
    }.NotEmpty();

    private readonly Option<bool> _force = new("--force")
    {
        Description = "Replace the data directory's contents if it is not empty (it is replaced only once the backup restored and verified).",
    };

    public RestoreCommand()
        : base("restore", "Restore a backup into a stopped server's data directory, verifying every page and file checksum; a damaged backup changes nothing.\n\n" + Examples)
    {
        Add(_file);
        Add(_dataDirectory);
        Add(_force);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var file = Path.GetFullPath(parseResult.GetRequiredValue(_file));
        var target = Path.TrimEndingDirectorySeparator(Path.GetFullPath(parseResult.GetRequiredValue(_dataDirectory)));
        if (!File.Exists(file))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"no backup file at '{file}'");
        }

        var replacing = Directory.Exists(target) && Directory.EnumerateFileSystemEntries(target).Any();
        if (replacing && !parseResult.GetValue(_force))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"'{target}' is not empty; pass --force to replace its contents with the backup (stop the server first)");
        }

        using var serverLock = replacing ? HoldServerLock(target) : null;
        var clock = Stopwatch.StartNew();

        // Beside the target, so the final move is a rename on the same file system.
        var scratch = $"{target}.restoring-{Guid.NewGuid():N}"[..(target.Length + 19)];
        IReadOnlyList<BackupEntry> entries;
        try
        {
            await using (var source = new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16))
            {
                entries = BackupRestorer.Restore(source, file, scratch);
            }
        }
        catch (StorageCorruptionException ex)
        {
            DeleteDirectory(scratch);
            throw new CommandFailedException(ExitCodes.Failure, $"the backup is damaged; nothing was restored and '{target}' is unchanged: {ex.Message}", ex);
        }
        catch
        {
            DeleteDirectory(scratch);
            throw;
        }

        serverLock?.Dispose();
        MoveIntoPlace(scratch, target);
        await BackupSummary.WriteAsync(parseResult.InvocationConfiguration.Output, $"restored {file} into {target}, every page and file checksum verified", entries, new FileInfo(file).Length, clock.Elapsed).ConfigureAwait(false);
        return ExitCodes.Success;
    }

    /// <summary>Holds the server's lock file while restoring, so a server cannot start on the directory meanwhile; fails if one runs.</summary>
    private static FileStream? HoldServerLock(string target)
    {
        var path = Path.Combine(target, DataDirectoryLayout.LockFileName);
        if (!File.Exists(path))
        {
            return null;
        }

        try
        {
            return new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"a server is using '{target}' (its {DataDirectoryLayout.LockFileName} is held); stop it before restoring over it", ex);
        }
    }

    /// <summary>Swaps the restored directory in: the old one aside, the new one in, the old one deleted; the old one back if the swap fails.</summary>
    private static void MoveIntoPlace(string scratch, string target)
    {
        if (!Directory.Exists(target))
        {
            Directory.Move(scratch, target);
            return;
        }

        var aside = $"{target}.replaced-{Guid.NewGuid():N}"[..(target.Length + 18)];
        Directory.Move(target, aside);
        try
        {
            Directory.Move(scratch, target);
        }
        catch
        {
            Directory.Move(aside, target);
            DeleteDirectory(scratch);
            throw;
        }

        DeleteDirectory(aside);
    }

    private static void DeleteDirectory(string path)
    {
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
