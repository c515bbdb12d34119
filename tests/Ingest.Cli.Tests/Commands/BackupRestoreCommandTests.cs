using System.Buffers.Binary;
using System.Net;
using System.Text;
using Ingest.Cli.Tests.Support;
using Ingest.Storage;
using Ingest.Storage.Backup;

namespace Ingest.Cli.Tests.Commands;

/// <summary><c>ingest backup</c> and <c>ingest restore</c>: what a user sees when they work and when they refuse.</summary>
public sealed class BackupRestoreCommandTests : IDisposable
{
    private readonly TestDirectory _directory = new();

    private string Data => Path.Combine(Root, "data");

    private string Restored => Path.Combine(Root, "restored");

    private string BackupFile => Path.Combine(Root, "data.backup");

    private string Root => _directory.Path;

    public void Dispose() => _directory.Dispose();

    /// <summary>A stopped server's data directory: the store, one index build with its catalog, an ETL task file and the server's lock file.</summary>
    private void WriteDataDirectory(int documents)
    {
        WriteEnvironment(Path.Combine(Data, "store"), "docs", documents);
        WriteEnvironment(Path.Combine(Data, "indexes", "Orders.1"), "terms", 10);
        File.WriteAllText(Path.Combine(Data, "indexes", "catalog.json"), """{"indexes":[]}""");
        Directory.CreateDirectory(Path.Combine(Data, "etl"));
        File.WriteAllText(Path.Combine(Data, "etl", "tasks.json"), "[]");
        File.WriteAllText(Path.Combine(Data, "ingest.lock"), string.Empty);
    }

    private static void WriteEnvironment(string directory, string tree, int count)
    {
        using var env = StorageEnvironment.Open(directory, new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe });
        using var tx = env.BeginWrite();
        var t = tx.CreateTree(tree);
        for (var i = 0; i < count; i++)
        {
            var value = new byte[i % 10 == 0 ? 5000 : 100];
            BinaryPrimitives.WriteInt32LittleEndian(value, i);
            t.Put(Encoding.UTF8.GetBytes($"{tree}/{i:D5}"), value);
        }

        tx.Commit();
    }

    private static int Count(string directory, string tree)
    {
        using var env = StorageEnvironment.Open(directory);
        using var read = env.BeginRead();
        var cursor = read.OpenTree(tree)!.CreateCursor();
        var n = 0;
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            Assert.Equal(n, BinaryPrimitives.ReadInt32LittleEndian(cursor.Value));
            n++;
        }

        return n;
    }

    [Fact]
    public async Task Backup_of_a_stopped_data_directory_and_restore_reproduce_every_store_and_file_but_the_lock()
    {
        WriteDataDirectory(500);

        var backup = await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile);

        Assert.True(backup.ExitCode == 0, backup.ToString());
        Assert.StartsWith($"backed up {Data} to {BackupFile}: 2 environment(s), 2 file(s), ", backup.Output, StringComparison.Ordinal);
        Assert.Contains("  store: transaction 1, ", backup.Output, StringComparison.Ordinal);
        Assert.Contains("  indexes/Orders.1: transaction 1, ", backup.Output, StringComparison.Ordinal);
        Assert.Contains("  etl/tasks.json: 2 bytes", backup.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("ingest.lock", backup.Output, StringComparison.Ordinal);
        Assert.False(File.Exists(BackupFile + ".partial"));

        var restore = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Restored);

        Assert.True(restore.ExitCode == 0, restore.ToString());
        Assert.StartsWith($"restored {BackupFile} into {Restored}, every page and file checksum verified: 2 environment(s), 2 file(s)", restore.Output, StringComparison.Ordinal);
        Assert.Equal(500, Count(Path.Combine(Restored, "store"), "docs"));
        Assert.Equal(10, Count(Path.Combine(Restored, "indexes", "Orders.1"), "terms"));
        Assert.Equal("[]", File.ReadAllText(Path.Combine(Restored, "etl", "tasks.json")));
        Assert.Equal("""{"indexes":[]}""", File.ReadAllText(Path.Combine(Restored, "indexes", "catalog.json")));
        Assert.False(File.Exists(Path.Combine(Restored, "ingest.lock")));
        Assert.Equal(["data", "data.backup", "restored"], Directory.GetFileSystemEntries(Root).Select(Path.GetFileName).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Restore_refuses_a_non_empty_directory_without_force_and_replaces_it_with_force()
    {
        WriteDataDirectory(50);
        Assert.Equal(0, (await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile)).ExitCode);
        Directory.CreateDirectory(Restored);
        File.WriteAllText(Path.Combine(Restored, "old.txt"), "old");

        var refused = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Restored);

        Assert.Equal(2, refused.ExitCode);
        Assert.Equal($"error: '{Restored}' is not empty; pass --force to replace its contents with the backup (stop the server first){Environment.NewLine}", refused.Error);
        Assert.True(File.Exists(Path.Combine(Restored, "old.txt")));

        var forced = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Restored, "--force");

        Assert.True(forced.ExitCode == 0, forced.ToString());
        Assert.False(File.Exists(Path.Combine(Restored, "old.txt")));
        Assert.Equal(50, Count(Path.Combine(Restored, "store"), "docs"));
        Assert.Equal(["data", "data.backup", "restored"], Directory.GetFileSystemEntries(Root).Select(Path.GetFileName).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Restore_of_a_damaged_backup_names_the_page_and_leaves_the_directory_as_it_was()
    {
        WriteDataDirectory(300);
        Assert.Equal(0, (await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile)).ExitCode);
        var bytes = File.ReadAllBytes(BackupFile);

        // The indexes entry comes first (sorted); damage the first page image after it ends, inside the store's pages.
        var storeEntry = IndexOf(bytes, [(byte)'E', 5, 0, .. "store"u8]);
        var firstUnit = storeEntry + 1 + 2 + "store".Length + 16;
        var firstPage = BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(firstUnit));
        bytes[firstUnit + 12 + 3000] ^= 0xFF;
        File.WriteAllBytes(BackupFile, bytes);
        Directory.CreateDirectory(Restored);
        File.WriteAllText(Path.Combine(Restored, "old.txt"), "old");

        var run = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Restored, "--force");

        Assert.Equal(1, run.ExitCode);
        Assert.Equal(
            $"error: the backup is damaged; nothing was restored and '{Restored}' is unchanged: Damaged backup: page {firstPage} of 'store' fails its checksum (file '{BackupFile}', offset {firstUnit + 12}){Environment.NewLine}",
            run.Error);
        Assert.Equal(["old.txt"], Directory.GetFileSystemEntries(Restored).Select(Path.GetFileName));
        Assert.Equal(["data", "data.backup", "restored"], Directory.GetFileSystemEntries(Root).Select(Path.GetFileName).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Restore_refuses_a_directory_a_server_is_using()
    {
        WriteDataDirectory(10);
        Assert.Equal(0, (await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile)).ExitCode);
        using var serverLock = new FileStream(Path.Combine(Data, "ingest.lock"), FileMode.Open, FileAccess.ReadWrite, FileShare.None);

        var run = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Data, "--force");

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: a server is using '{Data}' (its ingest.lock is held); stop it before restoring over it", run.Error, StringComparison.Ordinal);
        Assert.Equal(10, Count(Path.Combine(Data, "store"), "docs"));
    }

    [Fact]
    public async Task Backup_refuses_to_overwrite_a_file_without_force_and_a_missing_data_directory()
    {
        File.WriteAllText(BackupFile, "keep");

        var exists = await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile);
        Assert.Equal(2, exists.ExitCode);
        Assert.Equal($"error: '{BackupFile}' exists; pass --force to replace it{Environment.NewLine}", exists.Error);
        Assert.Equal("keep", File.ReadAllText(BackupFile));

        var missing = await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile, "--force");
        Assert.Equal(2, missing.ExitCode);
        Assert.Equal($"error: no data directory at '{Data}'{Environment.NewLine}", missing.Error);

        var noOut = await CommandLineRun.RunAsync("backup");
        Assert.Equal(2, noOut.ExitCode);
        Assert.Contains("--out", noOut.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Offline_backup_of_a_store_a_server_holds_points_to_the_hot_backup()
    {
        WriteDataDirectory(10);
        using var running = StorageEnvironment.Open(Path.Combine(Data, "store"));

        var run = await CommandLineRun.RunAsync("backup", "--data-dir", Data, "--out", BackupFile);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot open the store in '{Path.Combine(Data, "store")}'", run.Error, StringComparison.Ordinal);
        Assert.Contains("is already open", run.Error, StringComparison.Ordinal);
        Assert.EndsWith($"A running server holds it: back it up through the server instead ('ingest backup --url URL --out FILE').{Environment.NewLine}", run.Error, StringComparison.Ordinal);
        Assert.False(File.Exists(BackupFile));
    }

    [Fact]
    public async Task Backup_from_a_server_keeps_what_arrived_only_when_it_is_whole()
    {
        var whole = await BackupBytesAsync();
        using var server = new StubHttpServer(request => request.HttpMethod == "POST" && request.Url!.AbsolutePath == "/admin/backup"
            ? (HttpStatusCode.OK, whole, "application/vnd.ingest.backup")
            : (HttpStatusCode.NotFound, [], "text/plain"));

        var run = await CommandLineRun.RunAsync("backup", "--url", server.Url.ToString(), "--out", BackupFile);

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.StartsWith($"backed up {server.Url} to {BackupFile}: 1 environment(s), 1 file(s)", run.Output, StringComparison.Ordinal);
        Assert.Equal(whole, File.ReadAllBytes(BackupFile));
        Assert.Equal(["/admin/backup"], server.RequestedPaths);
    }

    [Fact]
    public async Task Backup_from_a_server_that_sends_a_cut_short_backup_fails_and_keeps_no_file()
    {
        var whole = await BackupBytesAsync();
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, whole[..(whole.Length / 2)], "application/vnd.ingest.backup"));

        var run = await CommandLineRun.RunAsync("backup", "--url", server.Url.ToString(), "--out", BackupFile);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith("error: the backup received is not whole, so it was not kept: The backup ends early, inside ", run.Error, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(Root));
    }

    [Fact]
    public async Task Backup_from_an_unreachable_server_exits_1_naming_it()
    {
        var url = $"http://127.0.0.1:{LocalPorts.Unused()}/";

        var run = await CommandLineRun.RunAsync("backup", "--url", url, "--out", BackupFile);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot reach the server at {url}admin/backup: ", run.Error, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(Root));
    }

    [Fact]
    public async Task Restore_of_a_missing_file_is_a_usage_error()
    {
        var run = await CommandLineRun.RunAsync("restore", BackupFile, "--data-dir", Restored);

        Assert.Equal(2, run.ExitCode);
        Assert.Equal($"error: no backup file at '{BackupFile}'{Environment.NewLine}", run.Error);
        Assert.False(Directory.Exists(Restored));
    }

    [Theory]
    [InlineData("backup")]
    [InlineData("restore")]
    [InlineData("stats")]
    public async Task Help_shows_examples(string command)
    {
        var run = await CommandLineRun.RunAsync(command, "--help");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("Examples:", run.Output, StringComparison.Ordinal);
        Assert.Contains($"ingest {command}", run.Output, StringComparison.Ordinal);
    }

    private async Task<byte[]> BackupBytesAsync()
    {
        var directory = Path.Combine(Root, "env");
        WriteEnvironment(directory, "docs", 20);
        using var buffer = new MemoryStream();
        using (var env = StorageEnvironment.Open(directory))
        using (var read = env.BeginRead())
        {
            var writer = new BackupWriter(buffer);
            await writer.AddEnvironmentAsync("store", read);
            await writer.AddFileAsync("etl/tasks.json", "[]"u8.ToArray());
            await writer.CompleteAsync();
        }

        Directory.Delete(directory, recursive: true);
        return buffer.ToArray();
    }

    private static int IndexOf(byte[] bytes, ReadOnlySpan<byte> value)
    {
        var i = bytes.AsSpan().IndexOf(value);
        Assert.True(i >= 0);
        return i;
    }
}
