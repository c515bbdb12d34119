namespace Ingest.Storage.Tests;

public sealed class EnvironmentTests
{
    [Fact]
    public void Committed_data_survives_reopen_and_aborted_data_does_not()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t").Put(Keys.Of("kept"), Keys.Of("1"));
                tx.Commit();
            }

            using (var tx = env.BeginWrite())
            {
                tx.OpenTree("t")!.Put(Keys.Of("aborted"), Keys.Of("2"));
            }

            Assert.Equal(1, env.LastCommittedTransactionId);
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var read = env.BeginRead();
            var t = read.OpenTree("t")!;
            Assert.True(t.TryGet(Keys.Of("kept"), out _));
            Assert.False(t.TryGet(Keys.Of("aborted"), out _));
            Assert.Equal(1, read.TransactionId);
        }

        Assert.True(dir.JournalFiles.Length <= 3, "a clean close keeps at most the current journal file and two spares");
    }

    [Fact]
    public void Second_open_of_the_same_directory_fails_clearly()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var ex = Assert.Throws<IOException>(() => StorageEnvironment.Open(dir.Path, TestDirectory.Options()));
        Assert.Contains("already open", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Using_transactions_or_environment_after_dispose_throws()
    {
        using var dir = new TestDirectory();
        var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var write = env.BeginWrite();
        var tree = write.CreateTree("t");
        write.Commit();
        Assert.Throws<ObjectDisposedException>(() => tree.Put(Keys.Of("a"), Keys.Of("b")));
        Assert.Throws<ObjectDisposedException>(() => write.Commit());
        Assert.Throws<ObjectDisposedException>(() => write.CreateTree("u"));

        var read = env.BeginRead();
        var copy = read;
        var readTree = read.OpenTree("t")!;
        read.Dispose();
        Assert.Throws<ObjectDisposedException>(() => copy.OpenTree("t"));
        Assert.Throws<ObjectDisposedException>(() => readTree.TryGet(Keys.Of("a"), out _));
        copy.Dispose(); // double dispose of a copy is harmless

        var other = env.BeginRead(); // may reuse the same slot: the stale copy must stay disposed
        Assert.Throws<ObjectDisposedException>(() => copy.TransactionId);
        var live = other.OpenTree("t")!;
        env.Dispose();
        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        Assert.Throws<ObjectDisposedException>(() => env.BeginWrite());
        Assert.Throws<ObjectDisposedException>(() => live.Count);
        Assert.Throws<ObjectDisposedException>(() => default(ReadTransaction).OpenTree("t"));
        other.Dispose();
        env.Dispose();
    }

    [Fact]
    public void Open_and_close_200_times_leaks_no_native_memory_or_handles()
    {
        using var dir = new TestDirectory();
        var handlesBefore = OpenFileDescriptors(dir.Path);
        for (var i = 0; i < 200; i++)
        {
            var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
            if (i == 0 && handlesBefore >= 0)
            {
                Assert.True(OpenFileDescriptors(dir.Path) > handlesBefore, "an open environment's files are not seen among the descriptors");
            }

            using (var tx = env.BeginWrite())
            {
                var t = tx.CreateTree("t");
                t.Put(Keys.Of(i), new byte[i % 3 == 0 ? 20_000 : 10]);
                tx.Commit();
            }

            using (var tx = env.BeginWrite())
            {
                tx.OpenTree("t")!.Put(Keys.Of("aborted"), [1]);
            }

            using (var read = env.BeginRead())
            {
                Assert.Equal(i + 1, read.OpenTree("t")!.Count);
            }

            if (i % 2 == 0)
            {
                env.SimulateCrashOnDispose = i % 4 == 0;
            }

            var scratch = env.Scratch;
            env.Dispose();
            Assert.Equal(0, scratch.Outstanding);
            Assert.Equal(0, scratch.LiveBlocks);
        }

        var handlesAfter = OpenFileDescriptors(dir.Path);
        if (handlesBefore >= 0)
        {
            // Only descriptors of this test's directory count: other tests run concurrently and open files of their own.
            Assert.True(handlesAfter - handlesBefore == 0, $"file descriptors under {dir.Path}: {handlesBefore} -> {handlesAfter}");
        }
    }

    [Fact]
    public void Flushed_pages_return_to_the_scratch_pool_once_the_transactions_older_than_the_flush_end()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false));
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            for (var i = 0; i < 2_000; i++)
            {
                t.Put(Keys.Of(i), new byte[100]);
            }

            tx.Commit();
        }

        var committed = env.Scratch.Outstanding;
        var older = env.BeginRead(); // may hold pointers to the committed scratch versions
        env.FlushNow();
        Assert.Equal(0, env.FlushBacklogPages);
        Assert.Equal(committed, env.Scratch.Outstanding); // the older reader still pins them

        // Both begin after the flush unlinked the versions, on the same snapshot as the older reader: they read the
        // data file, so they must not keep the versions alive (they did while their snapshot id was all that counted).
        var newer = env.BeginRead();
        using (var write = env.BeginWrite())
        {
            Assert.True(write.OpenTree("t")!.TryGet(Keys.Of(7), out _));
            Assert.True(older.OpenTree("t")!.TryGet(Keys.Of(1_999), out var value));
            Assert.Equal(100, value.Length);
            older.Dispose();
            Assert.Equal(committed, env.Scratch.Outstanding); // freed when a transaction ends, as before
        }

        Assert.True(env.Scratch.Outstanding < committed / 4, $"{env.Scratch.Outstanding} of {committed} scratch pages still held");
        Assert.True(newer.OpenTree("t")!.TryGet(Keys.Of(1_999), out var again));
        Assert.Equal(100, again.Length);
        newer.Dispose();
    }

    // The process's descriptors that name a file under the directory (a descriptor closed while it is listed is skipped).
    private static int OpenFileDescriptors(string under)
    {
        if (!Directory.Exists("/proc/self/fd"))
        {
            return -1;
        }

        var count = 0;
        foreach (var fd in Directory.GetFiles("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget is { } target && target.StartsWith(under, StringComparison.Ordinal))
                {
                    count++;
                }
            }
            catch (IOException)
            {
            }
        }

        return count;
    }

    [Fact]
    public void A_second_write_transaction_on_the_same_thread_throws_instead_of_deadlocking()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        Assert.Throws<InvalidOperationException>(() => env.BeginWrite());
    }

    [Fact]
    public void Journal_files_are_recycled_and_stale_records_in_them_are_ignored_by_recovery()
    {
        using var dir = new TestDirectory();
        var value = new byte[3000];
        for (var round = 0; round < 4; round++)
        {
            using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
            for (var i = 0; i < 300; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Keys.Of((round * 1000) + i), value);
                tx.Commit();
            }

            env.FlushNow();
            Assert.Equal(1, env.JournalFileCount);
            Assert.True(dir.JournalFiles.Length <= 3, $"{dir.JournalFiles.Length} journal files on disk: the current one and at most two spares");
            env.SimulateCrashOnDispose = round % 2 == 1;
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var read = env.BeginRead();
            Assert.Equal(1200, read.OpenTree("t")!.Count);
        }

        Assert.True(dir.JournalFiles.Length <= 3, $"{dir.JournalFiles.Length} journal files left");
    }

    [Fact]
    public void Write_transactions_are_serialized()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            tx.CreateFixedSizeTree("counter", 8).Put(0, BitConverter.GetBytes(0L));
            tx.Commit();
        }

        var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
        {
            for (var i = 0; i < 100; i++)
            {
                using var tx = env.BeginWrite();
                var t = tx.OpenFixedSizeTree("counter")!;
                t.TryGet(0, out var v);
                var n = BitConverter.ToInt64(v);
                t.Put(0, BitConverter.GetBytes(n + 1));
                tx.Commit();
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        using var read = env.BeginRead();
        read.OpenFixedSizeTree("counter")!.TryGet(0, out var final);
        Assert.Equal(400, BitConverter.ToInt64(final));
    }

    [Fact]
    public void Durable_mode_commits_and_reopens()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(sync: SyncMode.Durable)))
        {
            for (var i = 0; i < 20; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Keys.Of(i), Keys.Of(i));
                tx.Commit();
            }

            env.SimulateCrashOnDispose = true;
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(sync: SyncMode.Durable)))
        {
            using var read = env.BeginRead();
            Assert.Equal(20, read.OpenTree("t")!.Count);
        }
    }

    [Fact]
    public void Rewriting_the_same_keys_keeps_the_data_file_within_twice_its_first_size()
    {
        using var dir = new TestDirectory();
        const int n = 30_000;
        var rnd = new Random(5);
        var keys = Enumerable.Range(0, n).Select(_ =>
        {
            var k = new byte[24];
            rnd.NextBytes(k);
            return k;
        }).ToArray();
        var value = new byte[150];
        long firstRound = 0;
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        for (var round = 0; round < 6; round++)
        {
            for (var batch = 0; batch < n; batch += 15_000)
            {
                using var tx = env.BeginWrite();
                var t = tx.CreateTree("t");
                for (var i = batch; i < batch + 15_000; i++)
                {
                    value[0] = (byte)round;
                    t.Put(keys[i], value);
                }

                tx.Commit();
            }

            env.FlushNow();
            var size = new FileInfo(dir.DataFile).Length;
            if (round == 0)
            {
                firstRound = size;
            }
            else
            {
                Assert.True(size <= 2 * firstRound, $"round {round}: data file {size} bytes, first round {firstRound}");
            }
        }
    }
}
