namespace Ingest.Storage.Tests.Journal;

/// <summary>
/// <see cref="StorageOptions.UnjournaledBuild"/>: a new environment's commits skip the journal until the build is
/// finished; a crash before that (the data file half written by the flusher) discards the build on the next open, and
/// once it is finished, commits are journaled and survive a crash as always.
/// </summary>
public sealed class UnjournaledBuildTests
{
    private static StorageOptions BuildOptions(bool backgroundFlush = true)
    {
        var options = TestDirectory.Options(backgroundFlush, SyncMode.Durable);
        options.UnjournaledBuild = true;
        return options;
    }

    private static void PutKeys(StorageEnvironment env, int from, int count)
    {
        using var tx = env.BeginWrite();
        var t = tx.CreateTree("t");
        var value = new byte[300];
        for (var i = from; i < from + count; i++)
        {
            value[0] = (byte)i;
            t.Put(Keys.Of(i), value);
        }

        tx.Commit();
    }

    [Fact]
    public void A_build_commits_without_writing_the_journal()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, BuildOptions());
        Assert.True(env.IsBuilding);
        Assert.True(File.Exists(dir.Combine(StorageEnvironment.BuildMarkerFileName)));
        PutKeys(env, 0, 5_000);
        PutKeys(env, 5_000, 5_000);
        Assert.Equal(0, env.JournalBytesWritten);
        Assert.Equal(0, env.JournalSyncCount);
        using var read = env.BeginRead();
        Assert.Equal(10_000, read.OpenTree("t")!.Count);
    }

    [Fact]
    public void A_crash_during_a_build_discards_it_even_after_the_flusher_wrote_part_of_it()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, BuildOptions(backgroundFlush: false)))
        {
            PutKeys(env, 0, 5_000);
            env.FlushNow(); // the data file now holds half of the build
            PutKeys(env, 5_000, 5_000);
            env.SimulateCrashOnDispose = true;
        }

        Assert.True(File.Exists(dir.Combine(StorageEnvironment.BuildMarkerFileName)));
        using (var reopened = StorageEnvironment.Open(dir.Path, BuildOptions()))
        {
            // Nothing of the half-written build is used: the environment starts empty, and is a build again.
            Assert.True(reopened.IsBuilding);
            using (var read = reopened.BeginRead())
            {
                Assert.Null(read.OpenTree("t"));
            }

            PutKeys(reopened, 0, 3_000);
            Assert.True(reopened.Verify().IsClean);
        }
    }

    [Fact]
    public void A_crash_before_the_build_finishes_discards_it_even_without_the_option()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, BuildOptions(backgroundFlush: false)))
        {
            PutKeys(env, 0, 2_000);
            env.FlushNow();
            env.SimulateCrashOnDispose = true;
        }

        // The marker decides, not the opener's options: the data file of an unfinished build may be torn.
        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.True(reopened.IsBuilding);
        using var read = reopened.BeginRead();
        Assert.Null(read.OpenTree("t"));
    }

    [Fact]
    public void A_finished_build_survives_a_crash_and_later_commits_are_journaled()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, BuildOptions(backgroundFlush: false)))
        {
            PutKeys(env, 0, 5_000);
            Assert.True(env.TryFinishBuild());
            Assert.False(env.IsBuilding);
            Assert.False(File.Exists(dir.Combine(StorageEnvironment.BuildMarkerFileName)));
            Assert.Equal(0, env.JournalBytesWritten);

            PutKeys(env, 5_000, 100); // journaled, never flushed: only the journal has it when the process dies
            Assert.True(env.JournalBytesWritten > 0);
            env.SimulateCrashOnDispose = true;
        }

        using var reopened = StorageEnvironment.Open(dir.Path, BuildOptions());
        Assert.False(reopened.IsBuilding); // the data file exists and its build finished: the option does not apply
        using var read = reopened.BeginRead();
        Assert.Equal(5_100, read.OpenTree("t")!.Count);
    }

    [Fact]
    public void A_reader_on_an_older_snapshot_keeps_the_build_from_finishing_until_it_ends()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, BuildOptions(backgroundFlush: false));
        PutKeys(env, 0, 1_000);
        var reader = env.BeginRead();
        PutKeys(env, 1_000, 1_000);
        Assert.False(env.TryFinishBuild());
        Assert.True(env.IsBuilding);
        reader.Dispose();
        Assert.True(env.TryFinishBuild());
        Assert.False(env.IsBuilding);
    }

    [Fact]
    public void A_clean_close_finishes_the_build()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, BuildOptions()))
        {
            PutKeys(env, 0, 4_000);
        }

        Assert.False(File.Exists(dir.Combine(StorageEnvironment.BuildMarkerFileName)));
        using var reopened = StorageEnvironment.Open(dir.Path, BuildOptions());
        Assert.False(reopened.IsBuilding);
        using var read = reopened.BeginRead();
        Assert.Equal(4_000, read.OpenTree("t")!.Count);
        Assert.True(reopened.Verify().IsClean);
    }

    [Fact]
    public void An_existing_environment_is_not_made_a_build_by_the_option()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            PutKeys(env, 0, 100);
        }

        using var reopened = StorageEnvironment.Open(dir.Path, BuildOptions());
        Assert.False(reopened.IsBuilding);
        PutKeys(reopened, 100, 100);
        Assert.True(reopened.JournalBytesWritten > 0);
    }
}
