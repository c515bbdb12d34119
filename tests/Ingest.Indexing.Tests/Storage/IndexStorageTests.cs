using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;
using Ingest.Storage;

namespace Ingest.Indexing.Tests.Storage;

public sealed class IndexStorageTests : IDisposable
{
    private const int Tags = 0;
    private const int Total = 1;
    private const int Customer = 2;

    private static readonly IndexDefinition Definition = new(
        "Orders/ByTag",
        ["Orders"],
        [
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword),
        ]);

    private static readonly StorageOptions Options = new() { SyncMode = SyncMode.NoSyncUnsafe };

    private readonly TestDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(IndexStorage.DefaultInlineLimit)]
    public void Update_removes_the_terms_the_document_no_longer_has_and_adds_the_new_ones(int inlineLimit)
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options, inlineLimit);
        using var batch = index.CreateBatch();
        Put(batch, "orders/1", 1, """{"Tags":["x","y"],"Total":1,"Customer":"Acme"}""");
        Put(batch, "orders/2", 2, """{"Tags":["y"],"Total":5,"Customer":"Acme"}""");
        Apply(index, batch);
        Put(batch, "orders/1", 3, """{"Tags":["y","z"],"Total":2}""");
        Apply(index, batch);

        using var reader = index.BeginRead();
        var one = Entry(reader, "orders/1");
        var two = Entry(reader, "orders/2");
        Assert.Empty(Lookup(reader, Tags, "x"));
        Assert.Equal([one, two], Lookup(reader, Tags, "y"));
        Assert.Equal([one], Lookup(reader, Tags, "z"));
        Assert.Equal([two], Lookup(reader, Customer, "acme"));
        Assert.Equal([one], Ids(reader.Nulls, Customer));
        Assert.Empty(LookupNumber(reader, 1));
        Assert.Equal([one], LookupNumber(reader, 2));
        Assert.True(reader.TryReadNumber(Total, one, out var total));
        Assert.Equal(2, total);
        Assert.Equal(3, reader.LastIndexedEtag);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(IndexStorage.DefaultInlineLimit)]
    public void Delete_removes_every_term_null_column_value_and_id_of_the_document(int inlineLimit)
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options, inlineLimit);
        using var batch = index.CreateBatch();
        Put(batch, "orders/1", 1, """{"Tags":["x"],"Total":7}""");
        Put(batch, "orders/2", 2, """{"Tags":["x"],"Total":7}""");
        Apply(index, batch);
        long deleted;
        using (var before = index.BeginRead())
        {
            deleted = Entry(before, "orders/1");
        }

        batch.Delete("orders/1", 3);
        Apply(index, batch);

        using var reader = index.BeginRead();
        var kept = Entry(reader, "orders/2");
        Assert.Equal([kept], Lookup(reader, Tags, "x"));
        Assert.Equal([kept], LookupNumber(reader, 7));
        Assert.Equal([kept], Ids(reader.Nulls, Customer));
        Assert.Equal([kept], Ids(reader.Exists, Tags));
        Assert.False(reader.TryReadNumber(Total, deleted, out _));
        Assert.False(reader.TryGetDocumentId(deleted, out _));
        Assert.False(reader.TryGetEntry("orders/1", out _));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(IndexStorage.DefaultInlineLimit)]
    public void Repeated_terms_of_one_document_are_indexed_once_and_removed_once(int inlineLimit)
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options, inlineLimit);
        using var batch = index.CreateBatch();
        Put(batch, "orders/1", 1, """{"Tags":["a","A","a","b"]}""");
        Put(batch, "orders/2", 2, """{"Tags":["a"]}""");
        Apply(index, batch);
        using (var reader = index.BeginRead())
        {
            Assert.Equal([Entry(reader, "orders/1"), Entry(reader, "orders/2")], Lookup(reader, Tags, "a"));
        }

        Put(batch, "orders/1", 3, """{"Tags":["b","b"]}""");
        Apply(index, batch);
        using (var reader = index.BeginRead())
        {
            Assert.Equal([Entry(reader, "orders/2")], Lookup(reader, Tags, "a"));
            Assert.Equal([Entry(reader, "orders/1")], Lookup(reader, Tags, "b"));
        }
    }

    [Fact]
    public void A_document_changed_several_times_in_one_batch_counts_with_its_last_change()
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options);
        using var batch = index.CreateBatch();
        Put(batch, "orders/1", 1, """{"Tags":["first"]}""");
        Put(batch, "orders/1", 2, """{"Tags":["second"]}""");
        batch.Delete("orders/2", 3);
        Put(batch, "orders/2", 4, """{"Tags":["second"]}""");
        Put(batch, "orders/3", 5, """{"Tags":["gone"]}""");
        batch.Delete("orders/3", 6);
        Apply(index, batch);

        using var reader = index.BeginRead();
        Assert.Empty(Lookup(reader, Tags, "first"));
        Assert.Empty(Lookup(reader, Tags, "gone"));
        Assert.Equal([Entry(reader, "orders/1"), Entry(reader, "orders/2")], Lookup(reader, Tags, "second"));
        Assert.False(reader.TryGetEntry("orders/3", out _));
        Assert.Equal(6, reader.LastIndexedEtag);
    }

    [Fact]
    public void New_documents_are_numbered_in_the_order_of_their_last_change_and_casings_of_one_id_are_one_document()
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options);
        using var batch = index.CreateBatch();
        Put(batch, "orders/9", 1, """{"Tags":["a"]}""");
        Apply(index, batch);
        Put(batch, "orders/3", 2, """{"Tags":["b"]}""");
        Put(batch, "ORDERS/9", 3, """{"Tags":["c"]}""");
        Put(batch, "orders/1", 4, """{"Tags":["b"]}""");
        Put(batch, "Orders/3", 5, """{"Tags":["d"]}""");
        batch.Delete("orders/7", 6);
        Apply(index, batch);

        // The batch's ids are looked up and put in key order, but a new document's entry follows the batch: the order of
        // each document's last change (orders/1 at etag 4 before Orders/3 at etag 5), not its key.
        using var reader = index.BeginRead();
        Assert.Equal(1, Entry(reader, "orders/9"));
        Assert.Equal(2, Entry(reader, "orders/1"));
        Assert.Equal(3, Entry(reader, "orders/3"));
        Assert.Empty(Lookup(reader, Tags, "a"));
        Assert.Equal([1L], Lookup(reader, Tags, "c"));
        Assert.Equal([2L], Lookup(reader, Tags, "b"));
        Assert.Equal([3L], Lookup(reader, Tags, "d"));
        Assert.False(reader.TryGetEntry("orders/7", out _));
        Assert.Equal(3, index.EntryCount);
    }

    [Fact]
    public void A_term_moves_to_its_own_posting_list_past_the_inline_limit_and_keeps_working()
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options, inlineLimit: 4);
        using var batch = index.CreateBatch();
        for (var i = 1; i <= 10; i++)
        {
            Put(batch, $"orders/{i}", i, """{"Tags":["common"]}""");
        }

        Apply(index, batch);
        for (var i = 1; i <= 10; i += 2)
        {
            Put(batch, $"orders/{i}", 10 + i, """{"Tags":["other"]}""");
        }

        Apply(index, batch);
        using var reader = index.BeginRead();
        long[] even = [.. Enumerable.Range(1, 5).Select(i => Entry(reader, $"orders/{i * 2}"))];
        Assert.Equal(even, Lookup(reader, Tags, "common"));
        Assert.Equal(5, Lookup(reader, Tags, "other").Count);
    }

    [Fact]
    public void Range_and_prefix_scans_return_each_entry_once_in_ascending_order()
    {
        using var index = IndexStorage.Open(_directory.Path, Definition, Options);
        using var batch = index.CreateBatch();
        Put(batch, "orders/1", 1, """{"Tags":["apple","apricot"]}""");
        Put(batch, "orders/2", 2, """{"Tags":["banana"]}""");
        Put(batch, "orders/3", 3, """{"Tags":["ap"],"Customer":"apex"}""");
        Apply(index, batch);

        using var reader = index.BeginRead();
        long one = Entry(reader, "orders/1"), two = Entry(reader, "orders/2"), three = Entry(reader, "orders/3");
        var result = new List<long>();
        reader.Prefix(Tags, "ap"u8, result);
        Assert.Equal([one, three], result);
        result.Clear();
        reader.Range(Tags, "apq"u8, "banana"u8, result);
        Assert.Equal([one], result);
        result.Clear();
        reader.RangeFrom(Tags, "b"u8, result);
        Assert.Equal([two], result);
        Assert.Equal([one, two, three], Ids(reader.Exists, Tags));
    }

    [Fact]
    public void The_last_indexed_etag_and_the_index_survive_reopen_and_a_changed_definition_is_refused()
    {
        using (var index = IndexStorage.Open(_directory.Path, Definition, Options))
        {
            using var batch = index.CreateBatch();
            Put(batch, "orders/1", 41, """{"Tags":["kept"]}""");
            Apply(index, batch);
        }

        using (var index = IndexStorage.Open(_directory.Path, Definition, Options))
        {
            Assert.Equal(41, index.LastIndexedEtag);
            using var reader = index.BeginRead();
            Assert.Equal([Entry(reader, "orders/1")], Lookup(reader, Tags, "kept"));
            Assert.True(reader.TryGetDocumentId(Entry(reader, "orders/1"), out var id));
            Assert.Equal("orders/1", id);
        }

        var changed = Definition with { Fields = [.. Definition.Fields.Take(2)] };
        var error = Assert.Throws<InvalidOperationException>(() => IndexStorage.Open(_directory.Path, changed, Options));
        Assert.Contains("different definition", error.Message, StringComparison.Ordinal);
    }

    private static void Put(IndexBatch batch, string id, long etag, string json) => batch.Put(id, etag, Encoding.UTF8.GetBytes(json));

    private static void Apply(IndexStorage index, IndexBatch batch)
    {
        index.Apply(batch);
        batch.Clear();
    }

    private static long Entry(IndexReader reader, string documentId)
    {
        Assert.True(reader.TryGetEntry(documentId, out var entry), documentId);
        return entry;
    }

    private static List<long> Lookup(IndexReader reader, int field, string keyword)
    {
        var result = new List<long>();
        reader.Lookup(field, Encoding.UTF8.GetBytes(keyword), result);
        return result;
    }

    private static List<long> LookupNumber(IndexReader reader, double value)
    {
        var term = new byte[NumberTerm.Size];
        NumberTerm.Write(value, term);
        var result = new List<long>();
        reader.Lookup(Total, term, result);
        return result;
    }

    private static List<long> Ids(Action<int, List<long>> query, int field)
    {
        var result = new List<long>();
        query(field, result);
        return result;
    }
}
