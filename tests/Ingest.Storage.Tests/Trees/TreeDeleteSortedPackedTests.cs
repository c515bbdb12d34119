namespace Ingest.Storage.Tests.Trees;

public sealed class TreeDeleteSortedPackedTests
{
    [Fact]
    public void Packed_sorted_keys_are_deleted_and_absent_ones_skipped()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < 10_000; i++)
        {
            tree.Put(Key(i), [1, 2, 3]);
        }

        // Every third key, plus keys that were never there, in ascending order, end to end.
        var packed = new List<byte>();
        for (var i = 0; i < 10_000; i += 3)
        {
            packed.AddRange(Key(i));
            packed.AddRange(Key(i).AsSpan(0, 4).ToArray().Concat(new byte[] { 0xFF, 0xFF, 0xFF, 0xFF }));
        }

        var deleted = tree.DeleteSorted(packed.ToArray(), keySize: 8);

        Assert.Equal(3_334, deleted);
        Assert.Equal(10_000 - 3_334, tree.Count);
        for (var i = 0; i < 10_000; i++)
        {
            Assert.Equal(i % 3 != 0, tree.ContainsKey(Key(i)));
        }
    }

    [Fact]
    public void A_buffer_that_is_not_whole_keys_is_rejected()
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");

        Assert.Throws<ArgumentException>(() => tree.DeleteSorted(new byte[10], keySize: 8));
        Assert.Throws<ArgumentOutOfRangeException>(() => tree.DeleteSorted(new byte[8], keySize: 0));
    }

    // Big-endian, so byte order is numeric order; the low 4 bytes 0xFFFFFFFF sort after key i's own.
    private static byte[] Key(int i)
    {
        var key = new byte[8];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }
}
