using System.Text;
using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>The per-batch collection filter answers as the task definition does, from the name's UTF-8 bytes, and hands back the stored casing.</summary>
public sealed class EtlCollectionFilterTests
{
    [Fact]
    public void Collections_are_matched_case_insensitively_and_named_in_their_stored_casing_again_and_again()
    {
        var filter = new EtlCollectionFilter(new EtlTaskDefinition { Name = "t", Collections = ["orders", "Lines/ü"] });

        for (var pass = 0; pass < 3; pass++)
        {
            Assert.True(filter.Includes("Orders"u8, out var orders));
            Assert.Equal("Orders", orders);
            Assert.True(filter.Includes("ORDERS"u8, out var upper));
            Assert.Equal("ORDERS", upper);
            Assert.True(filter.Includes(Encoding.UTF8.GetBytes("lines/Ü"), out var lines));
            Assert.Equal("lines/Ü", lines);
            Assert.False(filter.Includes("Customers"u8, out var customers));
            Assert.Equal("Customers", customers);
        }
    }

    [Fact]
    public void Past_the_remembered_names_every_collection_is_still_answered()
    {
        var filter = new EtlCollectionFilter(new EtlTaskDefinition { Name = "t", Collections = ["c7", "c99"] });

        for (var pass = 0; pass < 2; pass++)
        {
            for (var i = 0; i < 200; i++)
            {
                var name = $"c{i}";
                Assert.Equal(i is 7 or 99, filter.Includes(Encoding.UTF8.GetBytes(name), out var found));
                Assert.Equal(name, found);
            }
        }
    }

    [Fact]
    public void A_wildcard_task_includes_every_collection()
    {
        var filter = new EtlCollectionFilter(new EtlTaskDefinition { Name = "t", Collections = ["*"] });

        Assert.True(filter.Includes("Anything"u8, out var name));
        Assert.Equal("Anything", name);
    }
}
