using Ingest.Cli.Tests.Support;
using Ingest.Storage;

namespace Ingest.Cli.Tests.Commands;

/// <summary><c>ingest verify</c> and <c>ingest recover</c> on a stopped server's data directory.</summary>
public sealed class StoreCommandsTests : IDisposable
{
    private readonly TestDirectory _directory = new();

    private string DataDirectory => _directory.Path;

    private string StorePath => Path.Combine(DataDirectory, "store");

    /// <summary>Commits <paramref name="transactions"/> transactions; with <paramref name="crash"/> the journal keeps them (no flush), as after a kill.</summary>
    private long[] WriteStore(int transactions, bool crash)
    {
        var options = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe, JournalFileSize = 256 * 1024, BackgroundFlush = !crash };
        using var env = StorageEnvironment.Open(StorePath, options);
        for (var i = 0; i < transactions; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("docs").Put(System.Text.Encoding.UTF8.GetBytes($"doc/{i:D4}"), new byte[300]);
            tx.Commit();
        }

        env.SimulateCrashOnDispose = crash;
        using var read = env.BeginRead();
        return [read.OpenTree("docs")!.RootPage];
    }

    [Fact]
    public async Task Verify_of_a_sound_store_prints_clean_and_exits_0()
    {
        WriteStore(20, crash: false);

        var run = await CommandLineRun.RunAsync("verify", DataDirectory);

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Contains($"{StorePath}: transaction 20,", run.Output, StringComparison.Ordinal);
        Assert.EndsWith($"checked: clean{Environment.NewLine}", run.Output, StringComparison.Ordinal);
        Assert.Contains("documents: 0 read,", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_prints_each_damaged_page_with_its_tree_and_exits_1()
    {
        var page = WriteStore(20, crash: false)[0];
        using (var file = new FileStream(Path.Combine(StorePath, "data.ingest"), FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = (page * 8192) + 7000;
            file.WriteByte(0xA5);
        }

        var run = await CommandLineRun.RunAsync("verify", DataDirectory);

        Assert.True(run.ExitCode == 1, run.ToString());
        Assert.Contains($"damaged: page {page} (file '{Path.Combine(StorePath, "data.ingest")}', offset {page * 8192}): tree page of tree 'docs': fails its checksum", run.Output, StringComparison.Ordinal);
        Assert.Contains("1 damaged page(s)", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_decompresses_every_document_and_names_a_damaged_compressed_one()
    {
        var options = new Ingest.Documents.DocumentStoreOptions { Compression = true, DictionaryTrainingDocuments = 50, Storage = new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe, JournalFileSize = 256 * 1024 } };
        long etag;
        using (var store = Ingest.Documents.DocumentStore.Open(StorePath, options))
        {
            // Two batches: the first trains the dictionary (its 50th put), the second is compressed with it.
            foreach (var (from, to) in new[] { (0, 60), (60, 80) })
            {
                var batch = new Ingest.Documents.WriteBatch();
                for (var i = from; i < to; i++)
                {
                    batch.Put($"events/{i}", "Events", $"{{\"level\":\"info\",\"service\":\"checkout\",\"message\":\"order {i} paid after {i * 7} ms by customer {i % 13}\"}}");
                }

                await store.WriteAsync(batch);
            }

            using var reader = store.BeginRead();
            Assert.True(reader.TryGet("events/70", out var view));
            Assert.Equal(Ingest.Documents.DocumentFlags.Compressed, view.Flags);
            etag = view.Etag;
        }

        var sound = await CommandLineRun.RunAsync("verify", DataDirectory);
        Assert.True(sound.ExitCode == 0, sound.ToString());
        Assert.Contains("documents: 80 read,", sound.Output, StringComparison.Ordinal);
        Assert.Contains("1 dictionaries", sound.Output, StringComparison.Ordinal);

        // Damage the frame of events/70 inside a valid page (checksums stay right: only the document check can see it).
        using (var env = StorageEnvironment.Open(StorePath, options.Storage))
        {
            using var tx = env.BeginWrite();
            var byEtag = tx.OpenTree("docs/by-etag")!;
            var key = new byte[8];
            System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(key, etag);
            Assert.True(byEtag.TryGet(key, out var value));
            var damaged = value.ToArray();
            damaged[^3] ^= 0xFF;
            damaged[^8] ^= 0xFF;
            byEtag.Put(key, damaged);
            tx.Commit();
        }

        var run = await CommandLineRun.RunAsync("verify", DataDirectory);
        Assert.True(run.ExitCode == 1, run.ToString());
        Assert.Contains("damaged document: document 'events/70'", run.Output, StringComparison.Ordinal);
        Assert.Contains("checked: 1 document problem(s)", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Recover_refuses_a_deleted_journal_and_with_accept_loss_opens_and_prints_what_was_lost()
    {
        WriteStore(10, crash: true);
        foreach (var journal in Directory.GetFiles(StorePath, "journal.*"))
        {
            File.Delete(journal);
        }

        var refused = await CommandLineRun.RunAsync("recover", DataDirectory);
        var accepted = await CommandLineRun.RunAsync("recover", "--accept-loss", DataDirectory);
        var afterwards = await CommandLineRun.RunAsync("recover", DataDirectory);

        Assert.True(refused.ExitCode == 1, refused.ToString());
        Assert.Contains("is missing", refused.Error, StringComparison.Ordinal);
        Assert.Contains("--accept-loss", refused.Error, StringComparison.Ordinal);
        Assert.True(accepted.ExitCode == 0, accepted.ToString());
        Assert.Contains("accepted the journal's loss: kept transactions up to 0, lost every transaction after 0", accepted.Output, StringComparison.Ordinal);
        Assert.True(afterwards.ExitCode == 0, afterwards.ToString());
        Assert.Contains("the journal is intact; nothing lost", afterwards.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Verify_of_a_directory_without_a_store_is_a_usage_error_and_creates_nothing()
    {
        Directory.CreateDirectory(DataDirectory);

        var run = await CommandLineRun.RunAsync("verify", DataDirectory);

        Assert.True(run.ExitCode == 2, run.ToString());
        Assert.Contains("no store in", run.Error, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(DataDirectory));
    }

    public void Dispose() => _directory.Dispose();
}
