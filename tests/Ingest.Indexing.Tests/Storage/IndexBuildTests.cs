using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Storage;

namespace Ingest.Indexing.Tests.Storage;

/// <summary>
/// A new index directory is an unjournaled build until it is finished: a copy of its files taken while the build runs
/// (what a crash leaves on disk) opens as an empty index that starts again from etag 0, never as the half-written
/// build; a copy taken after the build finished holds every batch.
/// </summary>
public sealed class IndexBuildTests : IDisposable
{
    private static readonly IndexDefinition Definition = new(
        "Orders/Build",
        ["Orders"],
        [
            new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
        ]);

    private static readonly StorageOptions Options = new() { SyncMode = SyncMode.Durable, FlushThresholdPages = 16, FlushInterval = TimeSpan.FromMilliseconds(20) };

    private readonly TestDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void A_crash_image_of_an_unfinished_build_opens_empty_and_the_build_starts_again()
    {
        var built = _directory.Combine("built");
        var crashed = _directory.Combine("crashed");
        using (var index = IndexStorage.Open(built, Definition, Options))
        {
            Assert.True(index.IsBuilding);
            ApplyOrders(index, 0, 3_000);
            ApplyOrders(index, 3_000, 3_000);
            // Let the flusher write the build into the data file, as it does mid-build; the image must be discarded anyway.
            SpinWait.SpinUntil(() => index.Environment.FlushBacklogPages == 0, TimeSpan.FromSeconds(30));
            CopyFiles(built, crashed);
            Assert.True(index.IsBuilding);
        }

        using var reopened = IndexStorage.Open(crashed, Definition, Options);
        Assert.True(reopened.IsBuilding);
        Assert.Equal(0, reopened.LastIndexedEtag);
        Assert.Equal(0, reopened.EntryCount);
        using (var reader = reopened.BeginRead())
        {
            Assert.False(reader.TryGetEntry("orders/1", out _));
        }

        // The restarted build indexes from the start and ends like any other.
        ApplyOrders(reopened, 0, 6_000);
        Assert.True(reopened.TryFinishBuild());
        Assert.Equal(6_000, reopened.EntryCount);
        Assert.True(reopened.Verify().IsClean);
    }

    [Fact]
    public void A_crash_image_of_a_finished_build_holds_every_batch_and_later_batches_are_journaled()
    {
        var built = _directory.Combine("built");
        var crashed = _directory.Combine("crashed");
        using (var index = IndexStorage.Open(built, Definition, Options))
        {
            ApplyOrders(index, 0, 4_000);
            Assert.True(index.TryFinishBuild());
            Assert.False(index.IsBuilding);
            var journaled = index.Environment.JournalBytesWritten;
            ApplyOrders(index, 4_000, 500);
            Assert.True(index.Environment.JournalBytesWritten > journaled);
            CopyFiles(built, crashed);
        }

        using var reopened = IndexStorage.Open(crashed, Definition, Options);
        Assert.False(reopened.IsBuilding);
        Assert.Equal(4_500, reopened.LastIndexedEtag);
        Assert.Equal(4_500, reopened.EntryCount);
        using var reader = reopened.BeginRead();
        Assert.True(reader.TryGetEntry("orders/4499", out _));
    }

    private static void ApplyOrders(IndexStorage index, int from, int count)
    {
        using var batch = index.CreateBatch();
        for (var i = from; i < from + count; i++)
        {
            batch.Put($"orders/{i}", i + 1, Encoding.UTF8.GetBytes($$"""{"Customer":"c{{i % 37}}","Total":{{i}}}"""));
        }

        index.Apply(batch);
    }

    /// <summary>The files as a crash would leave them: whatever reached the files so far (the lock file is not data).</summary>
    private static void CopyFiles(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from))
        {
            if (Path.GetFileName(file) == "lock")
            {
                continue;
            }

            try
            {
                File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
            }
            catch (FileNotFoundException)
            {
                // The flusher deleted a journal the data file no longer needs after the listing: a crash then would not have it either.
            }
        }
    }
}
