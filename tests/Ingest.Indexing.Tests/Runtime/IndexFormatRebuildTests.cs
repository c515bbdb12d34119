using Ingest.Indexing.Runtime;
using Ingest.Indexing.Storage;
using Ingest.Storage;

namespace Ingest.Indexing.Tests.Runtime;

/// <summary>
/// An index written before the ordinal columns (storage format 1: no "format" key in its meta tree) rebuilds itself
/// side by side when opened, says so in its status, and answers every query from the old build until the swap.
/// </summary>
public sealed class IndexFormatRebuildTests
{
    [Fact]
    public async Task An_old_format_index_rebuilds_itself_on_open_and_answers_throughout()
    {
        const int documents = 3_000;
        await using var host = await IndexedStore.OpenAsync(new IndexingOptions { MaxBatchDocuments = 25 });
        await host.Indexes.PutAsync(IndexSetTests.ByCustomer);
        await IndexBatchTests.WriteBacklogAsync(host.Store, documents);
        await host.CatchUpAsync(IndexSetTests.ByCustomer.Name);
        await host.StopAsync();

        // Make the build what format-1 code left on disk: no format key (its ordinal trees are then never read).
        var build = Assert.Single(Directory.GetDirectories(host.IndexesDirectory));
        using (var env = StorageEnvironment.Open(build))
        {
            using var tx = env.BeginWrite();
            Assert.True(tx.CreateTree(IndexLayout.Meta).Delete(IndexLayout.FormatKey));
            tx.Commit();
        }

        await host.StartAsync();
        var expected = Count(documents, i => i % 7 != 0 && i % 1000 == 42);
        var sawOld = false;
        var reads = 0;
        var ids = new List<long>();
        while (true)
        {
            var status = host.Indexes.GetStatus(IndexSetTests.ByCustomer.Name)!;
            using var reader = host.Indexes.BeginRead(IndexSetTests.ByCustomer.Name)!;
            ids.Clear();
            reader.Lookup(0, "c42"u8, ids);
            Assert.Equal(expected, ids.Count);
            Assert.Equal(documents, reader.EntryCount);
            reads++;
            if (!reader.HasOrdinals)
            {
                sawOld = true;
                if (status.State == IndexState.Rebuilding)
                {
                    Assert.Contains("storage format 1", status.RebuildReason);
                }
            }
            else
            {
                break;
            }

            await Task.Delay(2);
        }

        Assert.True(sawOld, "the first read after the open should come from the old build");
        var after = host.Indexes.GetStatus(IndexSetTests.ByCustomer.Name)!;
        Assert.Equal(IndexState.Indexing, after.State);
        Assert.Null(after.RebuildReason);
        Assert.Equal(documents, after.EntryCount);

        // The new build is current and stays current: a reopen starts no further rebuild.
        await host.ReopenAsync();
        Assert.Equal(IndexState.Indexing, host.Indexes.GetStatus(IndexSetTests.ByCustomer.Name)!.State);
        using var reopened = host.Indexes.BeginRead(IndexSetTests.ByCustomer.Name)!;
        Assert.True(reopened.HasOrdinals);
        Assert.True(reads > 0);
    }

    private static int Count(int documents, Func<int, bool> predicate) => Enumerable.Range(0, documents).Count(predicate);
}
