using System.Globalization;
using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Storage;

namespace Ingest.Indexing.Tests.Storage;

/// <summary>
/// A batch that deletes many documents sharing terms updates each term's posting list once, with all of the
/// term's removals sorted (the engine's own counters say so), never once per (term, document) pair.
/// </summary>
public sealed class IndexStorageSortedDeleteTests : IDisposable
{
    private const int Status = 0;
    private const int Tags = 1;
    private const int Documents = 600;
    private const int Deleted = 400;

    // The counts below are of posting list updates: terms must spill to posting lists at these sizes.
    private const int SpillAbove = 64;

    private static readonly IndexDefinition Definition = new(
        "Orders/ByStatusAndTags",
        ["Orders"],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
        ]);

    private static readonly StorageOptions Options = new() { SyncMode = SyncMode.NoSyncUnsafe };

    private readonly TestDirectory _sorted = new();
    private readonly TestDirectory _oneByOne = new();

    public void Dispose()
    {
        _sorted.Dispose();
        _oneByOne.Dispose();
    }

    [Fact]
    public void A_batch_of_deletes_updates_each_shared_terms_posting_list_once()
    {
        using var index = IndexStorage.Open(_sorted.Path, Definition, Options, inlineLimit: SpillAbove);
        Fill(index);

        DeleteMany(index);

        // 3 statuses and 4 tags, every one with well over the inline limit of ids: 7 posting lists, 7 updates,
        // for 400 deleted documents of 3 terms each.
        Assert.Equal(7, index.LastApplyCounters.PostingListUpdates);
        AssertOnlyTheRestRemain(index);
    }

    [Fact]
    public void The_benchmarks_one_by_one_mode_updates_once_per_removed_pair_with_the_same_result()
    {
        using var index = IndexStorage.Open(_oneByOne.Path, Definition, Options, inlineLimit: SpillAbove);
        Fill(index);
        index.ApplyPostingsOneByOne = true;

        DeleteMany(index);

        Assert.Equal(Deleted * 3, index.LastApplyCounters.PostingListUpdates);
        AssertOnlyTheRestRemain(index);
    }

    private static string Id(int i) => string.Create(CultureInfo.InvariantCulture, $"orders/{i}");

    private static string StatusOf(int i) => string.Create(CultureInfo.InvariantCulture, $"s{i % 3}");

    private static void Fill(IndexStorage index)
    {
        using var batch = index.CreateBatch();
        for (var i = 0; i < Documents; i++)
        {
            var json = string.Create(CultureInfo.InvariantCulture, $$"""{"Status":"{{StatusOf(i)}}","Tags":["t{{i % 4}}","t{{(i + 1) % 4}}"]}""");
            batch.Put(Id(i), i + 1, Encoding.UTF8.GetBytes(json));
        }

        index.Apply(batch);
    }

    private static void DeleteMany(IndexStorage index)
    {
        using var batch = index.CreateBatch();
        for (var i = 0; i < Deleted; i++)
        {
            batch.Delete(Id(i), Documents + i + 1);
        }

        index.Apply(batch);
    }

    private static void AssertOnlyTheRestRemain(IndexStorage index)
    {
        using var reader = index.BeginRead();
        for (var s = 0; s < 3; s++)
        {
            var expected = Enumerable.Range(Deleted, Documents - Deleted).Where(i => i % 3 == s).Select(i => Entry(reader, i)).Order();
            Assert.Equal(expected, Lookup(reader, Status, $"s{s}"));
        }

        for (var t = 0; t < 4; t++)
        {
            var expected = Enumerable.Range(Deleted, Documents - Deleted).Where(i => i % 4 == t || (i + 1) % 4 == t).Select(i => Entry(reader, i)).Order();
            Assert.Equal(expected, Lookup(reader, Tags, $"t{t}"));
        }

        Assert.False(reader.TryGetEntry(Id(0), out _));
    }

    private static long Entry(IndexReader reader, int i)
    {
        Assert.True(reader.TryGetEntry(Id(i), out var entry), Id(i));
        return entry;
    }

    private static List<long> Lookup(IndexReader reader, int field, string keyword)
    {
        var result = new List<long>();
        reader.Lookup(field, Encoding.UTF8.GetBytes(keyword), result);
        return result;
    }
}
