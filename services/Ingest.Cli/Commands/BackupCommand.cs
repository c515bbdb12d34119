using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using Ingest.Cli.Server;
using Ingest.Cli.Store;
using Ingest.Storage;
using Ingest.Storage.Backup;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest backup --out FILE</c>: a consistent backup of a server's whole data directory. From a running server
/// (<c>POST /admin/backup</c>, the default) it is a hot backup taken from snapshots while ingestion goes on; with
/// <c>--data-dir</c> it reads a stopped server's directory itself. The file is written beside its final name and
/// renamed into place (with <see cref="DurableFileWriter"/>) only once every page and entry checksum of what arrived
/// checked out.
/// </summary>
internal sealed class BackupCommand : Command
{
    private const string Examples = """
        Examples:
          ingest backup --out /backups/ingest-$(date +%F).backup
          ingest backup --url http://ingest:8080 --api-key "$INGEST_API_KEY" --out nightly.backup --force
          ingest backup --data-dir /var/lib/ingest --out offline.backup     (the server is stopped)
        """;

    private readonly ServerOptions _server = new(defaultTimeoutSeconds: 30);

    private readonly Option<string> _out = new Option<string>("--out")
    {
        Description = "The backup file to write.",
        HelpName = "FILE",
        Required = true,
    }.NotEmpty();

    private readonly Option<string?> _dataDirectory = new("--data-dir")
    {
        Description = "Back up a stopped server's data directory (Ingest:DataDirectory) instead of asking a running server.",
        HelpName = "DIR",
    };

    private readonly Option<bool> _force = new("--force")
    {
        Description = "Replace FILE if it exists.",
    };

    public BackupCommand()
        : base("backup", "Write a consistent backup of an Ingest server's data directory (documents, indexes, ETL tasks, saved Grafana queries) to a file. From a running server it is taken from snapshots while ingestion goes on.\n\n" + Examples)
    {
        _server.AddTo(this);
        Add(_out);
        Add(_dataDirectory);
        Add(_force);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var target = Path.GetFullPath(parseResult.GetRequiredValue(_out));
        if (File.Exists(target) && !parseResult.GetValue(_force))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"'{target}' exists; pass --force to replace it");
        }

        if (Directory.Exists(target))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"'{target}' is a directory; --out takes a file name");
        }

        var dataDirectory = parseResult.GetValue(_dataDirectory);
        var clock = Stopwatch.StartNew();
        string from;
        using var file = DurableFileWriter.Create(target, ".partial", bufferSize: 1 << 16, useAsync: true);
        if (dataDirectory is null)
        {
            using var client = _server.CreateClient(parseResult);
            from = client.AddressOf(string.Empty).ToString();
            await client.DownloadAsync(HttpMethod.Post, "admin/backup", "application/vnd.ingest.backup", file.Stream, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            from = Path.GetFullPath(dataDirectory);
            await WriteOfflineAsync(from, file.Stream, cancellationToken).ConfigureAwait(false);
        }

        file.Flush();
        IReadOnlyList<BackupEntry> entries;
        await using (var written = File.OpenRead(file.TemporaryPath))
        {
            entries = Check(written, target);
        }

        file.Commit();
        await BackupSummary.WriteAsync(parseResult.InvocationConfiguration.Output, $"backed up {from} to {target}", entries, new FileInfo(target).Length, clock.Elapsed).ConfigureAwait(false);
        return ExitCodes.Success;
    }

    /// <summary>Reads back what was written, so a backup cut short or damaged on the way is never left under its name.</summary>
    private static IReadOnlyList<BackupEntry> Check(Stream written, string target)
    {
        try
        {
            return BackupRestorer.Check(written, target);
        }
        catch (StorageCorruptionException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"the backup received is not whole, so it was not kept: {ex.Message}", ex);
        }
    }

    /// <summary>A stopped server's directory: each environment opened (its journal replayed) and copied from a snapshot, every other file as it is.</summary>
    private static async Task WriteOfflineAsync(string directory, Stream destination, CancellationToken cancellationToken)
    {
        if (!Directory.Exists(directory))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"no data directory at '{directory}'");
        }

        var (environments, files) = BackupSources.Scan(directory, path => path == DataDirectoryLayout.LockFileName);
        if (!environments.Contains(DataDirectoryLayout.StoreFolder))
        {
            throw new CommandFailedException(ExitCodes.Usage, $"'{directory}' has no store folder: pass the server's data directory (Ingest:DataDirectory)");
        }

        var backup = new BackupWriter(destination);
        foreach (var path in environments)
        {
            var full = Path.Combine(directory, path.Replace('/', Path.DirectorySeparatorChar));
            using var env = StoreDirectory.Open(
                full,
                new StorageOptions(),
                " (restore an older backup, or see 'ingest recover --help')",
                "A running server holds it: back it up through the server instead ('ingest backup --url URL --out FILE').");
            using var read = env.BeginRead();
            try
            {
                await backup.AddEnvironmentAsync(path, read, cancellationToken).ConfigureAwait(false);
            }
            catch (StorageCorruptionException ex)
            {
                throw new CommandFailedException(ExitCodes.Failure, $"'{path}' is damaged, so no backup was written: {ex.Message}", ex);
            }
        }

        foreach (var path in files)
        {
            var content = await File.ReadAllBytesAsync(Path.Combine(directory, path.Replace('/', Path.DirectorySeparatorChar)), cancellationToken).ConfigureAwait(false);
            await backup.AddFileAsync(path, content, cancellationToken).ConfigureAwait(false);
        }

        await backup.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }
}
