using System.Text;
using Ingest.Testing;

namespace Ingest.Documents.Tests.Positions;

/// <summary>A collection read in id order, whatever order it was written in; every source position listed.</summary>
public sealed class CollectionByIdTests
{
    [Fact]
    public void A_collection_reads_in_folded_id_order_without_other_collections_deleted_or_expired_documents()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch()
            .Put("orders/3", "Orders", "{\"n\":3}")
            .Put("customers/1", "Customers", "{}")
            .Put("Orders/1", "orders", "{\"n\":1}")
            .Put("orders/gone", "Orders", "{}")
            .Put("orders/expired", "Orders", """{"@metadata":{"@expires":"2001-01-01T00:00:00Z"}}""")
            .Put("orders/2", "Orders", "{\"n\":2}"));
        store.Write(new WriteBatch().Delete("orders/gone").Put("orders/3", "Orders", "{\"n\":33}"));

        using var reader = store.BeginRead();
        var read = new List<string>();
        foreach (var document in reader.GetCollectionById("ORDERS"))
        {
            read.Add($"{document.Id}={Encoding.UTF8.GetString(document.Body)}");
        }

        Assert.Equal(["Orders/1={\"n\":1}", "orders/2={\"n\":2}", "orders/3={\"n\":33}"], read);
        Assert.True(reader.CollectionExists("customers"));
        Assert.False(reader.CollectionExists("Nothing"));
        var none = reader.GetCollectionById("Nothing");
        Assert.False(none.MoveNext());
    }

    [Fact]
    public void Every_stored_source_position_is_listed_by_source_and_partition()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch()
            .SetSourcePosition("b/topic", 1, 5)
            .SetSourcePosition("a/topic", 10, 7)
            .SetSourcePosition("a/topic", 2, 9));

        using var reader = store.BeginRead();
        Assert.Equal(
            [("a/topic", 2, 9L), ("a/topic", 10, 7L), ("b/topic", 1, 5L)],
            reader.GetSourcePositions().Select(static p => (p.Position.Source, p.Position.Partition, p.Position.NextOffset)));
    }
}
