using System.Buffers.Binary;

namespace Ingest.Storage.Tests.Journal;

public sealed class RecoveryTests
{
    private const int Transactions = 5;

    /// <summary>Commits transactions 1..5 (each adds key i and a 20 KB value so records span pages) and "crashes".</summary>
    internal static void CommitAndCrash(TestDirectory dir, int transactions = Transactions)
    {
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false));
        for (var i = 1; i <= transactions; i++)
        {
            using var tx = env.BeginWrite();
            var t = tx.CreateTree("t");
            var big = new byte[20_000];
            Random.Shared.NextBytes(big); // not zeros: a torn write must actually lose bytes
            t.Put(Keys.Of(i), new byte[100]);
            t.Put(Keys.Of($"big{i}"), big);
            tx.Commit();
        }

        env.SimulateCrashOnDispose = true;
    }

    internal static List<(long Offset, long Length)> Records(string journal)
    {
        var bytes = File.ReadAllBytes(journal);
        var records = new List<(long, long)>();
        long pos = 0;
        while (pos + 32 <= bytes.Length && BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan((int)pos)) == 0x31524A49)
        {
            var count = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan((int)pos + 4));
            var payload = BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan((int)pos + 16));
            var total = (32 + (16L * count) + payload + 4095) / 4096 * 4096;
            records.Add((pos, total));
            pos += total;
        }

        return records;
    }

    internal static void Flip(string path, long offset)
    {
        using var f = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        f.Position = offset;
        var b = f.ReadByte();
        f.Position = offset;
        f.WriteByte((byte)(b ^ 0x5A));
    }

    internal static long CountKeys(TestDirectory dir, StorageOptions? options = null)
    {
        using var env = StorageEnvironment.Open(dir.Path, options ?? TestDirectory.Options());
        using var read = env.BeginRead();
        return read.OpenTree("t")?.Count ?? 0;
    }

    [Fact]
    public void Journal_is_replayed_after_a_crash()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        Assert.Equal(Transactions * 2, CountKeys(dir));
        Assert.Equal(Transactions * 2, CountKeys(dir));
    }

    [Fact]
    public void Torn_last_record_recovers_to_the_previous_commit()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        var records = Records(journal);
        Assert.Equal(Transactions, records.Count);
        var (offset, length) = records[^1];

        // The header made it to disk, the rest of the record did not.
        using (var f = new FileStream(journal, FileMode.Open, FileAccess.Write))
        {
            f.Position = offset + 4096;
            f.Write(new byte[length - 4096]);
        }

        Assert.Equal((Transactions - 1) * 2, CountKeys(dir));
    }

    [Fact]
    public void Flipped_byte_in_an_earlier_record_payload_is_reported_with_file_and_offset()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        var (offset, length) = Records(journal)[1];
        Flip(journal, offset + (length / 2));
        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));
        Assert.Equal(journal, ex.FilePath);
        Assert.Equal(offset, ex.Offset);
        Assert.Contains(journal, ex.Message, StringComparison.Ordinal);
        Assert.Contains($"offset {offset}", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Flipped_byte_in_an_earlier_record_header_is_reported_with_file_and_offset()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        var (offset, _) = Records(journal)[2];
        Flip(journal, offset + 9);
        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));
        Assert.Equal(journal, ex.FilePath);
        Assert.Equal(offset, ex.Offset);
    }

    [Fact]
    public void Flipped_byte_in_a_data_page_is_reported_with_file_and_offset()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var tx = env.BeginWrite();
            var t = tx.CreateTree("t");
            for (var i = 0; i < 10; i++)
            {
                t.Put(Keys.Of(i), new byte[10]);
            }

            tx.Commit();
        }

        // The tree "t" has a single leaf: its root, the first page allocated after the root tree.
        long leaf;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        using (var read = env.BeginRead())
        {
            leaf = read.OpenTree("t")!.RootPage;
        }

        var offset = (leaf * 8192) + 5000;
        Flip(dir.DataFile, offset);
        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));
        Assert.Equal(dir.DataFile, ex.FilePath);
        Assert.Equal(leaf * 8192, ex.Offset);
        Assert.Contains(dir.DataFile, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Damaged_file_header_copy_falls_back_to_the_other_copy()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Keys.Of(1), [1]);
            tx.Commit();
        }

        // The last header write went to one of the two slots; damage that one.
        var bytes = File.ReadAllBytes(dir.DataFile);
        var seq0 = BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(32));
        var seq1 = BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(4096 + 32));
        Flip(dir.DataFile, (seq0 > seq1 ? 0 : 4096) + 20);
        Assert.Equal(1, CountKeys(dir));
    }
}
