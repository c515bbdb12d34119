using System.Buffers.Binary;
using Ingest.Storage.Backup;

namespace Ingest.Storage.Tests.Backup;

public sealed class BackupTests
{
    private const string CounterKey = "counter";

    [Fact]
    public async Task A_backup_taken_while_a_writer_commits_restores_exactly_the_snapshot_it_read()
    {
        var seed = TestSeed.Next();
        Console.Error.WriteLine($"TestSeed: backup under writes runs with INGEST_TEST_SEED={seed}");
        using var source = new TestDirectory();
        using var restored = new TestDirectory();
        var backupFile = Path.Combine(source.Path, "..", Guid.NewGuid().ToString("N") + ".backup");
        using var env = StorageEnvironment.Open(source.Path, TestDirectory.Options());
        var writer = new Workload(seed);
        for (var i = 0; i < 100; i++)
        {
            writer.Commit(env); // enough pages in the data file and in scratch for the copy to take many writes
        }

        env.FlushNow();
        using var stop = new CancellationTokenSource();
        var progress = new SemaphoreSlim(0);
        var writing = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                writer.Commit(env);
                progress.Release();
            }
        });

        long snapshotCounter;
        long snapshotTx;
        try
        {
            await using (var file = new FileStream(backupFile, FileMode.CreateNew))
            {
                // Each chunk the backup writes waits for 20 more commits and a flush, so pages change, move to the
                // data file and get reused while the snapshot is being copied.
                var gated = new GatedStream(file, async () =>
                {
                    for (var i = 0; i < 20; i++)
                    {
                        await progress.WaitAsync();
                    }

                    env.FlushNow();
                });
                using var read = env.BeginRead();
                snapshotTx = read.TransactionId;
                snapshotCounter = Counter(read);
                var backup = new BackupWriter(gated);
                await backup.AddEnvironmentAsync("store", read);
                await backup.AddFileAsync("notes/readme.txt", "hello"u8.ToArray());
                await backup.CompleteAsync();
                Assert.True(gated.Writes >= 3, $"the backup wrote in {gated.Writes} chunk(s); the test needs writes between them");
            }
        }
        finally
        {
            await stop.CancelAsync();
            await writing;
        }

        Assert.True(writer.Committed > snapshotCounter + 40, "the writer kept committing during the backup");
        IReadOnlyList<BackupEntry> entries;
        await using (var file = File.OpenRead(backupFile))
        {
            entries = BackupRestorer.Restore(file, backupFile, restored.Path);
        }

        File.Delete(backupFile);
        Assert.Equal(["store", "notes/readme.txt"], entries.Select(e => e.Path));
        Assert.Equal(snapshotTx, entries[0].TransactionId);
        Assert.Equal("hello", File.ReadAllText(Path.Combine(restored.Path, "notes", "readme.txt")));

        var expected = new Workload(seed).Model(snapshotCounter);
        using var copy = StorageEnvironment.Open(Path.Combine(restored.Path, "store"), TestDirectory.Options());
        Assert.Equal(snapshotTx, copy.LastCommittedTransactionId);
        using (var read = copy.BeginRead())
        {
            Assert.Equal(snapshotCounter, Counter(read));
            var docs = read.OpenTree("docs")!;
            var cursor = docs.CreateCursor();
            var seen = 0;
            for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
            {
                var key = Keys.Text(cursor.Key);
                Assert.True(expected.TryGetValue(key, out var value), $"{key} is in the restored store but was not in the snapshot");
                Assert.True(value.AsSpan().SequenceEqual(cursor.Value), $"{key} differs from the snapshot");
                seen++;
            }

            Assert.Equal(expected.Count, seen);
        }

        Assert.True(copy.Verify().IsClean);

        // The restored store takes new commits like any other.
        using (var tx = copy.BeginWrite())
        {
            tx.CreateTree("docs").Put(Keys.Of("after-restore"), [1]);
            tx.Commit();
        }
    }

    [Fact]
    public async Task A_damaged_page_in_the_backup_is_refused_naming_the_entry_and_page()
    {
        using var dir = new TestDirectory();
        var backup = await BackupOf(dir, new Workload(7), commits: 30);
        var (offset, page) = FirstUnitFrom(backup, page: 5);
        backup[offset + 12 + 100] ^= 0x40; // inside the page's image

        using var target = new TestDirectory();
        var ex = Assert.Throws<StorageCorruptionException>(() => BackupRestorer.Restore(new MemoryStream(backup), "b.backup", Path.Combine(target.Path, "out")));

        Assert.Contains($"page {page} of 'store' fails its checksum", ex.Message, StringComparison.Ordinal);
        Assert.Equal(page, ex.Page);
        Assert.Equal("b.backup", ex.FilePath);
    }

    [Fact]
    public async Task Damage_outside_the_pages_fails_the_entry_checksum()
    {
        using var dir = new TestDirectory();
        var backup = await BackupOf(dir, new Workload(8), commits: 5);
        backup[^12] ^= 1; // the last byte of the file entry's content

        using var target = new TestDirectory();
        var ex = Assert.Throws<StorageCorruptionException>(() => BackupRestorer.Restore(new MemoryStream(backup), "b.backup", Path.Combine(target.Path, "out")));

        Assert.Contains("the entry 'extra.json' fails its checksum", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_truncated_backup_is_refused_as_incomplete()
    {
        using var dir = new TestDirectory();
        var backup = await BackupOf(dir, new Workload(9), commits: 5);

        foreach (var length in new[] { 3, backup.Length / 2, backup.Length - 9 })
        {
            using var target = new TestDirectory();
            var ex = Assert.Throws<StorageCorruptionException>(() => BackupRestorer.Restore(new MemoryStream(backup, 0, length), "b.backup", Path.Combine(target.Path, "out")));
            Assert.Contains("ends early", ex.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_file_that_is_not_a_backup_is_refused()
    {
        using var target = new TestDirectory();
        var ex = Assert.Throws<StorageCorruptionException>(() => BackupRestorer.Restore(new MemoryStream(new byte[64]), "x", Path.Combine(target.Path, "out")));
        Assert.Contains("Not an Ingest backup", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Restore_refuses_a_directory_that_is_not_empty()
    {
        using var dir = new TestDirectory();
        var backup = await BackupOf(dir, new Workload(10), commits: 2);
        using var target = new TestDirectory();
        File.WriteAllText(Path.Combine(target.Path, "keep.txt"), "mine");

        Assert.Throws<IOException>(() => BackupRestorer.Restore(new MemoryStream(backup), "b.backup", target.Path));
        Assert.Equal("mine", File.ReadAllText(Path.Combine(target.Path, "keep.txt")));
    }

    [Fact]
    public async Task A_damaged_page_in_the_source_fails_the_backup_instead_of_copying_it()
    {
        using var dir = new TestDirectory();
        var workload = new Workload(11);
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            for (var i = 0; i < 20; i++)
            {
                workload.Commit(env);
            }
        }

        using (var data = new FileStream(dir.DataFile, FileMode.Open))
        {
            data.Position = (3 * 8192) + 200;
            var b = data.ReadByte();
            data.Position--;
            data.WriteByte((byte)(b ^ 0x10));
        }

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        using (var read = env.BeginRead())
        {
            var ex = await Assert.ThrowsAsync<StorageCorruptionException>(() => new BackupWriter(Stream.Null).AddEnvironmentAsync("store", read));
            Assert.Equal(3, ex.Page);
        }
    }

    private static long Counter(ReadTransaction read) =>
        read.OpenTree("docs") is { } docs && docs.TryGet(Keys.Of(CounterKey), out var v) ? BinaryPrimitives.ReadInt64LittleEndian(v) : 0;

    private static async Task<byte[]> BackupOf(TestDirectory dir, Workload workload, int commits)
    {
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        for (var i = 0; i < commits; i++)
        {
            workload.Commit(env);
        }

        using var buffer = new MemoryStream();
        using (var read = env.BeginRead())
        {
            var backup = new BackupWriter(buffer);
            await backup.AddEnvironmentAsync("store", read);
            await backup.AddFileAsync("extra.json", "{\"a\":1}"u8.ToArray());
            await backup.CompleteAsync();
        }

        return buffer.ToArray();
    }

    /// <summary>Where the first unit at or after <paramref name="page"/> starts, in a backup whose first entry is the environment "store".</summary>
    private static (int Offset, long Page) FirstUnitFrom(byte[] backup, long page)
    {
        var offset = 16 + 1 + 2 + "store".Length + 16;
        while (true)
        {
            var unitPage = BinaryPrimitives.ReadInt64LittleEndian(backup.AsSpan(offset));
            var pages = BinaryPrimitives.ReadInt32LittleEndian(backup.AsSpan(offset + 8));
            Assert.True(unitPage >= 0, $"no page from {page} on is in the backup");
            if (unitPage >= page)
            {
                return (offset, unitPage);
            }

            offset += 12 + (pages * 8192);
        }
    }

    /// <summary>
    /// A seeded sequence of commits: each puts and deletes documents (some large enough to need overflow runs) and
    /// stores its own number under "counter", so the content at any counter can be replayed in a model.
    /// </summary>
    private sealed class Workload(int seed)
    {
        private readonly Random _random = new(seed);

        public long Committed { get; private set; }

        public void Commit(StorageEnvironment env)
        {
            using var tx = env.BeginWrite();
            var docs = tx.CreateTree("docs");
            Apply(Committed + 1, (key, value) => docs.Put(Keys.Of(key), value), key => docs.Delete(Keys.Of(key)));
            tx.Commit();
            Committed++;
        }

        public Dictionary<string, byte[]> Model(long commits)
        {
            var model = new Dictionary<string, byte[]>(StringComparer.Ordinal);
            for (var n = 1; n <= commits; n++)
            {
                Apply(n, (key, value) => model[key] = value, key => model.Remove(key));
            }

            return model;
        }

        private void Apply(long n, Action<string, byte[]> put, Action<string> delete)
        {
            for (var i = 0; i < 30; i++)
            {
                var key = $"doc/{_random.Next(1500):D5}";
                if (_random.Next(10) == 0)
                {
                    delete(key);
                    continue;
                }

                var value = new byte[_random.Next(4) == 0 ? _random.Next(3000, 20_000) : _random.Next(10, 500)];
                value.AsSpan().Fill((byte)((n + i) % 251));
                BinaryPrimitives.WriteInt64LittleEndian(value, n);
                put(key, value);
            }

            var counter = new byte[8];
            BinaryPrimitives.WriteInt64LittleEndian(counter, n);
            put(CounterKey, counter);
        }
    }

    /// <summary>A stream that runs a step before each write reaches the file.</summary>
    private sealed class GatedStream(Stream inner, Func<Task> beforeWrite) : Stream
    {
        public int Writes { get; private set; }

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => inner.Length;

        public override long Position { get => inner.Position; set => throw new NotSupportedException(); }

        public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            await beforeWrite();
            Writes++;
            await inner.WriteAsync(buffer, cancellationToken);
        }

        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

        public override void Flush() => inner.Flush();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
