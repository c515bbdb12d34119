using Ingest.Indexing.Definitions;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Execution;

public sealed class QueryFieldUsageTests
{
    [Fact]
    public void Fields_are_listed_once_in_order_of_appearance_with_their_uses_types_and_literals()
    {
        var query = QueryParser.Parse(
            "from Orders where search(Notes, 'late') and total > $min and Status in ('a', null) and startsWith(Customer.Name, 'ac') and id() = 'x' " +
            "group by time(At, '5m') select sum(Total), min(At), count(Tags) order by sum(Total) desc");

        var fields = QueryFieldUsage.Collect(query, QueryHost.Parameters(new { min = 5 }));

        Assert.Equal(["Notes", "total", "Status", "Customer.Name", "At", "Tags"], fields.Select(f => f.Path));
        var (notes, total, status, customer, at, tags) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]);
        Assert.Equal([IndexFieldType.Text], notes.UsableTypes);
        Assert.Equal("search()", notes.Usage);
        Assert.Equal(FieldUsages.Range | FieldUsages.Sum, total.Usages);
        Assert.Equal([IndexFieldType.Number], total.UsableTypes);
        Assert.Equal(IndexFieldType.Number, total.LiteralType);
        Assert.Equal(LiteralKinds.String | LiteralKinds.Null, status.Literals);
        Assert.Equal(IndexFieldType.Keyword, status.LiteralType);
        Assert.Equal([IndexFieldType.Keyword, IndexFieldType.Number, IndexFieldType.DateTime, IndexFieldType.Bool], status.UsableTypes);
        Assert.Equal([IndexFieldType.Keyword], customer.UsableTypes);
        Assert.Equal([IndexFieldType.DateTime], at.UsableTypes);
        Assert.Equal(FieldUsages.Count, tags.Usages);
        Assert.Equal(5, tags.UsableTypes.Count);
        Assert.Equal(new SourcePosition(25, 1, 26), notes.Position);
    }

    [Fact]
    public void A_query_that_only_projects_needs_no_index_field_and_conflicting_uses_allow_no_type()
    {
        var projecting = QueryFieldUsage.Collect(QueryParser.Parse("from Orders select Customer.Name, Id limit 5"), QueryParameters());
        var conflicting = QueryFieldUsage.Collect(QueryParser.Parse("from Orders where search(Notes, 'a') or startsWith(Notes, 'b')"), QueryParameters());

        Assert.False(Assert.Single(projecting).NeedsIndexField);
        Assert.Empty(Assert.Single(conflicting).UsableTypes);
    }

    private static Binding.QueryParameters QueryParameters() => Binding.QueryParameters.None;
}
