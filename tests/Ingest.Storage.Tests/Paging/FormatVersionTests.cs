using System.Buffers.Binary;
using Ingest.Storage.Paging;
using Ingest.Storage.Tests.Journal;

namespace Ingest.Storage.Tests.Paging;

/// <summary>Format 3 journals may hold page diffs: format 2 files still open (and are upgraded), unknown versions are refused by name.</summary>
public sealed class FormatVersionTests
{
    [Fact]
    public void A_format_2_data_file_opens_and_is_written_back_as_format_3()
    {
        using var dir = new TestDirectory();
        PutAndClose(dir, "before");
        SetVersion(dir, 2);

        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        {
            using (var read = env.BeginRead())
            {
                Assert.True(read.OpenTree("t")!.TryGet(Keys.Of("before"), out _));
            }

            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Keys.Of("after"), new byte[10]);
            tx.Commit();
        }

        Assert.All(Versions(dir), v => Assert.Equal(FileHeader.FormatVersion, v));
        Assert.Equal(2, RecoveryTests.CountKeys(dir));
    }

    [Fact]
    public void An_unknown_format_version_is_refused_with_the_version_in_the_message()
    {
        using var dir = new TestDirectory();
        PutAndClose(dir, "k");
        SetVersion(dir, FileHeader.FormatVersion + 1);
        var error = Assert.Throws<StorageCorruptionException>(() => StorageEnvironment.Open(dir.Path, TestDirectory.Options()));
        Assert.Contains($"format version {FileHeader.FormatVersion + 1}", error.Message, StringComparison.Ordinal);
    }

    private static void PutAndClose(TestDirectory dir, string key)
    {
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Keys.Of(key), new byte[10]);
        tx.Commit();
    }

    /// <summary>Rewrites the version of both header copies, with a valid checksum, as an older or newer binary would have written it.</summary>
    private static void SetVersion(TestDirectory dir, uint version)
    {
        var path = Path.Combine(dir.Path, DataFile.FileName);
        var bytes = File.ReadAllBytes(path);
        for (var slot = 0; slot < 2; slot++)
        {
            var header = bytes.AsSpan(slot * FileHeader.SlotSize, FileHeader.Size);
            BinaryPrimitives.WriteUInt32LittleEndian(header[8..], version);
            BinaryPrimitives.WriteUInt32LittleEndian(header[64..], Checksum.Compute(header[..64]));
        }

        File.WriteAllBytes(path, bytes);
    }

    private static uint[] Versions(TestDirectory dir)
    {
        var bytes = File.ReadAllBytes(Path.Combine(dir.Path, DataFile.FileName));
        return [BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(8)), BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(FileHeader.SlotSize + 8))];
    }
}
