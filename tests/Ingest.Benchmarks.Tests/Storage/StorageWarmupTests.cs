using Ingest.Benchmarks.Baselines.Disk;
using Ingest.Benchmarks.Storage;

namespace Ingest.Storage.Tests;

/// <summary>The storage benchmark's untimed warm-up: it runs every key-value path on a store of its own and leaves nothing behind.</summary>
public sealed class StorageWarmupTests
{
    [Fact]
    public void A_key_value_store_is_warmed_up_in_a_scratch_directory_that_is_deleted_afterwards()
    {
        using var directory = new TestDirectory();
        var opened = new List<string>();

        var ran = StorageWarmup.Run(
            path =>
            {
                opened.Add(path);
                return new IngestStorageSystem(path);
            },
            directory.Path,
            seed: 7,
            out var elapsed);

        Assert.True(ran);
        Assert.True(elapsed > TimeSpan.Zero);
        var scratch = Assert.Single(opened);
        Assert.StartsWith(directory.Path, scratch, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(directory.Path));
    }

    [Fact]
    public void A_system_without_key_value_trees_is_skipped_and_leaves_nothing_behind()
    {
        using var directory = new TestDirectory();

        var ran = StorageWarmup.Run(path => new DiskSyncBaseline(path), directory.Path, seed: 7, out var elapsed);

        Assert.False(ran);
        Assert.Equal(TimeSpan.Zero, elapsed);
        Assert.Empty(Directory.GetFileSystemEntries(directory.Path));
    }
}
