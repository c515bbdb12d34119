using System.Buffers.Binary;

namespace Ingest.Storage.Tests.Transactions;

public sealed class SnapshotIsolationTests
{
    private const int Accounts = 1_000;
    private const long Initial = 1_000;

    [Fact]
    public void Readers_always_see_the_invariant_while_the_writer_moves_values_and_pages_are_flushed() => TestSeed.Run(seed =>
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options();
        options.FlushThresholdPages = 32;
        options.FlushInterval = TimeSpan.FromMilliseconds(5);
        using var env = StorageEnvironment.Open(dir.Path, options);
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("accounts");
            var value = new byte[200]; // several accounts per page, many pages
            BinaryPrimitives.WriteInt64LittleEndian(value, Initial);
            for (var i = 0; i < Accounts; i++)
            {
                t.Put(Keys.Of(i), value);
            }

            tx.Commit();
        }

        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(3));
        var failures = new List<string>();
        var snapshotsChecked = 0L;
        var readers = Enumerable.Range(0, 3).Select(r => new Thread(() =>
        {
            try
            {
                while (!stop.IsCancellationRequested)
                {
                    using var read = env.BeginRead();
                    var first = Sum(read, out var count);
                    if (first != Accounts * Initial || count != Accounts)
                    {
                        lock (failures)
                        {
                            failures.Add($"tx {read.TransactionId}: sum {first}, count {count}");
                        }
                    }

                    // Hold the snapshot while commits and flushes go on, then read it again.
                    Thread.Sleep(r);
                    var again = Sum(read, out _);
                    if (again != first)
                    {
                        lock (failures)
                        {
                            failures.Add($"tx {read.TransactionId}: sum changed from {first} to {again}");
                        }
                    }

                    Interlocked.Increment(ref snapshotsChecked);
                }
            }
            catch (Exception ex)
            {
                lock (failures)
                {
                    failures.Add(ex.ToString());
                }
            }
        })).ToList();
        readers.ForEach(t => t.Start());

        var rnd = new Random(seed);
        var commits = 0;
        var buffer = new byte[200];
        while (!stop.IsCancellationRequested)
        {
            using var tx = env.BeginWrite();
            var t = tx.OpenTree("accounts")!;
            for (var m = 0; m < 20; m++)
            {
                var from = Keys.Of(rnd.Next(Accounts));
                var to = Keys.Of(rnd.Next(Accounts));
                var amount = rnd.Next(100);
                t.TryGet(from, out var fv);
                var fromBalance = BinaryPrimitives.ReadInt64LittleEndian(fv);
                fv.CopyTo(buffer);
                BinaryPrimitives.WriteInt64LittleEndian(buffer, fromBalance - amount);
                t.Put(from, buffer);
                t.TryGet(to, out var tv);
                var toBalance = BinaryPrimitives.ReadInt64LittleEndian(tv);
                tv.CopyTo(buffer);
                BinaryPrimitives.WriteInt64LittleEndian(buffer, toBalance + amount);
                t.Put(to, buffer);
            }

            if (rnd.Next(10) != 0)
            {
                tx.Commit();
                commits++;
            }
        }

        readers.ForEach(t => t.Join());
        Assert.Empty(failures);
        Assert.True(commits > 10, $"only {commits} commits");
        Assert.True(snapshotsChecked > 10, $"only {snapshotsChecked} snapshots checked");
        using var final = env.BeginRead();
        Assert.Equal(Accounts * Initial, Sum(final, out _));
    });

    private static long Sum(ReadTransaction read, out int count)
    {
        var cursor = read.OpenTree("accounts")!.CreateCursor();
        long sum = 0;
        count = 0;
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            sum += BinaryPrimitives.ReadInt64LittleEndian(cursor.Value);
            count++;
        }

        return sum;
    }

    [Fact]
    public void A_reader_does_not_see_commits_made_after_it_began()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of("a"), Keys.Of("old"));
            tx.Commit();
        }

        using var before = env.BeginRead();
        using (var tx = env.BeginWrite())
        {
            var t = tx.OpenTree("t")!;
            t.Put(Keys.Of("a"), Keys.Of("new"));
            t.Put(Keys.Of("b"), Keys.Of("added"));
            tx.Commit();
        }

        env.FlushNow();
        var old = before.OpenTree("t")!;
        Assert.True(old.TryGet(Keys.Of("a"), out var v));
        Assert.Equal("old", Keys.Text(v));
        Assert.False(old.TryGet(Keys.Of("b"), out _));

        using var after = env.BeginRead();
        Assert.True(after.OpenTree("t")!.TryGet(Keys.Of("a"), out var nv));
        Assert.Equal("new", Keys.Text(nv));
    }

    [Fact]
    public void The_flusher_keeps_versions_an_active_reader_may_need_and_flushes_them_once_it_ends()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of("a"), Keys.Of("v1"));
            tx.Commit();
        }

        var reader = env.BeginRead();
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t")!.Put(Keys.Of("a"), Keys.Of("v2"));
            tx.Commit();
        }

        env.FlushNow();
        Assert.Equal(1, env.Data.Header.LastAppliedTx);
        Assert.True(env.UnflushedPageCount > 0, "transaction 2's pages must wait for the reader of transaction 1");
        Assert.True(reader.OpenTree("t")!.TryGet(Keys.Of("a"), out var old));
        Assert.Equal("v1", Keys.Text(old));

        reader.Dispose();
        env.FlushNow();
        Assert.Equal(2, env.Data.Header.LastAppliedTx);
        Assert.Equal(0, env.UnflushedPageCount);
        using var after = env.BeginRead();
        Assert.True(after.OpenTree("t")!.TryGet(Keys.Of("a"), out var current));
        Assert.Equal("v2", Keys.Text(current));
    }

    [Fact]
    public void A_reader_keeps_working_while_the_data_file_grows_and_is_remapped_under_it()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false));
        var value = new byte[1000];
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of(-1), value);
            tx.Commit();
        }

        env.FlushNow();
        var before = env.Data.Map;
        using (var tx = env.BeginWrite())
        {
            var t = tx.OpenTree("t")!;
            for (var i = 0; i < 5_000; i++)
            {
                t.Put(Keys.Of(i), value); // about 5 MB: the file must grow
            }

            tx.Commit();
        }

        using (var reader = env.BeginRead())
        {
            env.FlushNow();
            Assert.NotSame(before, env.Data.Map);
            var t = reader.OpenTree("t")!;
            for (var i = 0; i < 5_000; i++)
            {
                Assert.True(t.TryGet(Keys.Of(i), out var v));
                Assert.Equal(value.Length, v.Length);
            }
        }

        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t")!.Put(Keys.Of("after"), value);
            tx.Commit();
        }

        using var last = env.BeginRead();
        Assert.Equal(5_002, last.OpenTree("t")!.Count);
    }
}
