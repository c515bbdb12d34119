using Ingest.Storage.Tests.Journal;

namespace Ingest.Storage.Tests;

/// <summary>
/// A full disk (ENOSPC on a journal or data file write, injected through the environment's write
/// seam) fails the commits it concerns with <see cref="DiskFullException"/>, publishes nothing of
/// them, and the environment resumes by itself once space is back, without a reopen.
/// </summary>
public sealed class DiskFullTests
{
    private static void Put(StorageEnvironment env, string key, int valueSize = 100)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Keys.Of(key), new byte[valueSize]);
        tx.Commit();
    }

    private static List<string> KeysIn(StorageEnvironment env)
    {
        using var read = env.BeginRead();
        var keys = new List<string>();
        var cursor = read.OpenTree("t")!.CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            keys.Add(Keys.Text(cursor.Key));
        }

        return keys;
    }

    private static void WaitUntil(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the condition did not become true within 30 s");
            Thread.Sleep(10);
        }
    }

    [Fact]
    public void An_environment_that_cannot_make_its_journal_at_open_opens_for_reads_and_writes_once_there_is_room()
    {
        using var dir = new TestDirectory();
        using (var first = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            Put(first, "a");
        }

        // Every record is in the data file after a clean close: no journal file is needed, so none is left to reuse.
        foreach (var journal in Directory.GetFiles(dir.Path, "journal.*"))
        {
            File.Delete(journal);
        }

        var options = TestDirectory.Options();
        options.Faults = new Ingest.Storage.Paging.WriteFaults { DiskFull = true };
        using var env = StorageEnvironment.Open(dir.Path, options);

        // The first journal file is the small initial one: that is what writing needs.
        var full = env.DiskFull;
        Assert.NotNull(full);
        Assert.Equal(options.EffectiveInitialJournalFileSize, full.BytesNeeded);
        Assert.Contains($"Writing needs {DiskFullException.FormatBytes(options.EffectiveInitialJournalFileSize)} free ({options.EffectiveInitialJournalFileSize} bytes)", full.Message, StringComparison.Ordinal);
        Assert.Equal(["a"], KeysIn(env));
        var refused = Assert.Throws<DiskFullException>(() => Put(env, "b"));
        Assert.Equal(options.EffectiveInitialJournalFileSize, refused.BytesNeeded);
        Assert.Equal(["a"], KeysIn(env));

        options.Faults.DiskFull = false;
        WaitUntil(() => env.DiskFull is null);
        Put(env, "b");
        Assert.Equal(["a", "b"], KeysIn(env));
    }

    [Fact]
    public void Journal_write_on_a_full_disk_fails_with_DiskFull_and_nothing_of_it_is_visible()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false));
        Put(env, "a");
        var before = env.LastCommittedTransactionId;

        env.Faults.DiskFull = true;
        var ex = Assert.Throws<DiskFullException>(() => Put(env, "b"));

        Assert.Contains("full", ex.Message, StringComparison.Ordinal);
        Assert.Same(ex, env.DiskFull);
        Assert.Equal(before, env.LastCommittedTransactionId);
        Assert.Equal(["a"], KeysIn(env));
    }

    [Fact]
    public void Commits_resume_once_space_is_back_and_every_acknowledged_one_survives_a_crash()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false)))
        {
            Put(env, "a");
            env.Faults.DiskFull = true;
            Assert.Throws<DiskFullException>(() => Put(env, "lost"));
            Assert.Throws<DiskFullException>(() => Put(env, "lost2"));

            env.Faults.DiskFull = false;
            Put(env, "b");
            Assert.Null(env.DiskFull);
            Put(env, "c");
            env.SimulateCrashOnDispose = true;
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.Equal(["a", "b", "c"], KeysIn(reopened));
    }

    [Fact]
    public void A_journal_file_that_cannot_be_created_leaves_no_gap_and_no_short_file_behind()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false)))
        {
            // Fill the first 256 KiB journal file until the next record needs a new file.
            var i = 0;
            while (dir.JournalFiles.Length < 2)
            {
                Put(env, $"k{i++:D4}", 20_000);
            }

            var files = dir.JournalFiles.Length;
            env.Faults.DiskFull = true;
            for (var attempt = 0; attempt < 20; attempt++)
            {
                Assert.Throws<DiskFullException>(() => Put(env, $"lost{attempt:D2}", 20_000));
            }

            Assert.Equal(files, dir.JournalFiles.Length);
            env.Faults.DiskFull = false;
            for (var j = 0; j < 20; j++)
            {
                Put(env, $"z{j:D4}", 20_000);
            }

            env.SimulateCrashOnDispose = true;
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var keys = KeysIn(reopened);
        Assert.DoesNotContain(keys, k => k.StartsWith("lost", StringComparison.Ordinal));
        Assert.Equal(20, keys.Count(k => k.StartsWith('z')));
    }

    [Fact]
    public void The_background_flusher_clears_the_state_once_space_is_back_without_a_commit()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Put(env, "a");
        env.Faults.DiskFull = true;
        Assert.Throws<DiskFullException>(() => Put(env, "b"));
        Assert.NotNull(env.DiskFull);

        env.Faults.DiskFull = false;
        WaitUntil(() => env.DiskFull == null);

        Put(env, "c");
        Assert.Equal(["a", "c"], KeysIn(env));
    }

    [Fact]
    public void A_data_file_flush_on_a_full_disk_is_retried_and_commits_go_on_meanwhile()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            env.Faults.DataFileFull = true;
            Put(env, "a");
            WaitUntil(() => env.DiskFull != null);
            Assert.Contains("data.ingest", env.DiskFull!.Message, StringComparison.Ordinal);

            Put(env, "b");
            env.Faults.DataFileFull = false;
            WaitUntil(() => env.DiskFull == null && env.UnflushedPageCount == 0);
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.Equal(["a", "b"], KeysIn(reopened));
    }

    [Fact]
    public void A_record_whose_sync_failed_is_blanked_when_the_next_commit_goes_to_a_new_file()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false)))
        {
            // Fill the first journal file until only small records still fit.
            Put(env, "first");
            var i = 0;
            while (new FileInfo(dir.JournalFiles[0]).Length - RecoveryTests.Records(dir.JournalFiles[0]).Sum(r => r.Length) > 40_000)
            {
                Put(env, $"k{i++:D4}", 3_000);
            }

            // The small record reaches the file whole, but its sync fails: not acknowledged.
            env.Faults.JournalSyncFull = true;
            Assert.Throws<DiskFullException>(() => Put(env, "unacknowledged", 100));
            env.Faults.JournalSyncFull = false;

            // The same transaction id, too large for what is left: it goes to a new file.
            Put(env, "acknowledged", 60_000);
            Assert.Equal(2, dir.JournalFiles.Length);
            env.SimulateCrashOnDispose = true;
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var keys = KeysIn(reopened);
        Assert.Contains("acknowledged", keys);
        Assert.DoesNotContain("unacknowledged", keys);
    }
}
