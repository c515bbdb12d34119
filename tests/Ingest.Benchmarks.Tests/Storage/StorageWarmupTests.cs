using Ingest.Benchmarks.Baselines.Disk;
using Ingest.Benchmarks.Storage;

namespace Ingest.Benchmarks.Tests.Storage;

/// <summary>The storage benchmark's untimed warm-up: it runs every key-value path on a store of its own and leaves nothing behind.</summary>
public sealed class StorageWarmupTests : IDisposable
{
    private readonly TestDirectory _directory = new();

    [Fact]
    public void A_key_value_store_is_warmed_up_in_a_scratch_directory_that_is_deleted_afterwards()
    {
        var opened = new List<string>();

        var ran = StorageWarmup.Run(
            path =>
            {
                opened.Add(path);
                return new IngestStorageSystem(path);
            },
            _directory.Path,
            seed: 7,
            out var elapsed);

        Assert.True(ran);
        Assert.True(elapsed > TimeSpan.Zero);
        var scratch = Assert.Single(opened);
        Assert.StartsWith(_directory.Path, scratch, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(_directory.Path));
    }

    [Fact]
    public void A_system_without_key_value_trees_is_skipped_and_leaves_nothing_behind()
    {
        var ran = StorageWarmup.Run(path => new DiskSyncBaseline(path), _directory.Path, seed: 7, out var elapsed);

        Assert.False(ran);
        Assert.Equal(TimeSpan.Zero, elapsed);
        Assert.Empty(Directory.GetFileSystemEntries(_directory.Path));
    }

    public void Dispose() => _directory.Dispose();
}
