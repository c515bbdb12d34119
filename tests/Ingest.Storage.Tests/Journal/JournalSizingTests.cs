using Ingest.Storage.Journal;

namespace Ingest.Storage.Tests.Journal;

/// <summary>Journal files start small, grow with the write rate up to the configured size, and recover across sizes.</summary>
public sealed class JournalSizingTests
{
    private const long Initial = 64 * 1024;
    private const long Max = 1024 * 1024;

    private static StorageOptions Options(bool backgroundFlush) => new()
    {
        SyncMode = SyncMode.NoSyncUnsafe,
        InitialJournalFileSize = Initial,
        JournalFileSize = Max,
        BackgroundFlush = backgroundFlush,
        FlushInterval = TimeSpan.FromMilliseconds(50),
        FlushThresholdPages = 256,
    };

    [Fact]
    public void A_fresh_environment_with_default_options_costs_well_under_a_megabyte()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, new StorageOptions { SyncMode = SyncMode.NoSyncUnsafe }))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("definition").Put(Keys.Of("name"), Keys.Of("Auto/Orders/ByCustomer"));
            tx.Commit();
        }

        var bytes = Directory.GetFiles(dir.Path).Sum(f => new FileInfo(f).Length);
        Assert.True(bytes <= 320 * 1024, $"an environment holding one small tree takes {bytes} bytes");
        Assert.Equal(64 * 1024, new FileInfo(Assert.Single(dir.JournalFiles)).Length);
    }

    [Fact]
    public void Sustained_writes_grow_the_files_up_to_the_configured_size()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false));
        Assert.Equal(Initial, new FileInfo(Assert.Single(dir.JournalFiles)).Length);

        var sizes = new SortedSet<long>();
        var value = new byte[2000];
        for (var i = 0; i < 4000; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Keys.Of(i), value);
            tx.Commit();
            foreach (var f in dir.JournalFiles)
            {
                sizes.Add(new FileInfo(f).Length);
            }

            if (i % 500 == 499)
            {
                env.FlushNow(); // lets files go, as the background flusher would
            }
        }

        Assert.Equal([Initial, 2 * Initial, 4 * Initial, 8 * Initial, Max], sizes);
        Assert.Equal(Max, env.NextJournalFileSize);
    }

    [Fact]
    public void A_crash_replays_every_commit_across_files_of_different_sizes()
    {
        using var dir = new TestDirectory();
        var value = new byte[1500];
        const int Count = 1500;
        using (var env = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false)))
        {
            for (var i = 0; i < Count; i++)
            {
                using var tx = env.BeginWrite();
                value[0] = (byte)i;
                tx.CreateTree("t").Put(Keys.Of(i), value);
                tx.Commit();
            }

            env.SimulateCrashOnDispose = true;
        }

        var lengths = dir.JournalFiles.Select(f => new FileInfo(f).Length).Distinct().Count();
        Assert.True(lengths >= 3, $"the journal holds files of {lengths} sizes; the test needs several");

        using var reopened = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false));
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.Equal(Count, tree.Count);
        for (var i = 0; i < Count; i++)
        {
            Assert.True(tree.TryGet(Keys.Of(i), out var v));
            Assert.Equal((byte)i, v[0]);
        }
    }

    [Theory]
    [InlineData(Initial, 1_000, Initial, 2 * Initial)] // filled fast: double
    [InlineData(Max, 1_000, Max, Max)] // never past the maximum
    [InlineData(4 * Initial, 60_000, 4 * Initial, 4 * Initial)] // steady: keep
    [InlineData(4 * Initial, 3_600_000, 4 * Initial, 2 * Initial)] // slow: halve
    [InlineData(Initial, 3_600_000, Initial, Initial)] // never below the initial size
    [InlineData(8 * Max, 1_000, Initial, 2 * Initial)] // a commit with a file of its own: doubles the target, not that file
    [InlineData(8 * Max, 1_000, Max, Max)]
    public void The_next_size_follows_how_fast_the_last_file_filled(long filled, long filledInMs, long current, long expected) =>
        Assert.Equal(expected, JournalWriter.NextFileSize(filled, filledInMs, current, Initial, Max));

    [Fact]
    public void A_commit_with_a_file_of_its_own_gives_the_file_back_once_flushed()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false));
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 400; i++)
            {
                tree.Put(Keys.Of(i), new byte[3000]); // about 1.2 MB: more than a file
            }

            tx.Commit();
        }

        Assert.Contains(dir.JournalFiles, f => new FileInfo(f).Length > Max);
        env.FlushNow();

        Assert.All(dir.JournalFiles, f => Assert.True(new FileInfo(f).Length <= Max));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of("after"), Keys.Of("v"));
            tx.Commit();
        }

        env.SimulateCrashOnDispose = true;
        env.Dispose();
        using var reopened = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false));
        using var read = reopened.BeginRead();
        Assert.Equal(401, read.OpenTree("t")!.Count);
    }

    [Fact]
    public void A_clean_close_keeps_only_small_files_so_the_next_open_starts_small()
    {
        using var dir = new TestDirectory();
        var value = new byte[2000];
        using (var env = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false)))
        {
            for (var i = 0; i < 1000; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Keys.Of(i), value);
                tx.Commit();
            }

            Assert.True(env.NextJournalFileSize > Initial);
        }

        Assert.All(dir.JournalFiles, f => Assert.Equal(Initial, new FileInfo(f).Length));
        using var reopened = StorageEnvironment.Open(dir.Path, Options(backgroundFlush: false));
        Assert.Equal(Initial, reopened.NextJournalFileSize);
        using var read = reopened.BeginRead();
        Assert.Equal(1000, read.OpenTree("t")!.Count);
    }
}
