using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>The seven example queries of issue 13 parse into the documented trees and format back canonically.</summary>
public sealed class QueryExamplesTests
{
    public static TheoryData<string, string, string> Examples => new()
    {
        {
            "from Orders where Status = 'shipped' and Total between 10 and 100 order by OrderedAt desc limit 50",
            "(query (Collection «Orders») (where (and (Equal @«Status» s:«shipped») (between @«Total» n:10=10 n:100=100))) (group) (select) (order (@«OrderedAt» desc Default)) (limit n:50=50) (offset ))",
            "from Orders where Status = 'shipped' and Total between 10 and 100 order by OrderedAt desc limit 50"
        },
        {
            "from index 'Orders/ByCustomer' where startsWith(Customer, 'acme') and OrderedAt >= $from select Id, Customer, Total",
            "(query (Index «Orders/ByCustomer») (where (and (startsWith @«Customer» s:«acme») (GreaterOrEqual @«OrderedAt» $«from»))) (group) (select («Id» #id) («Customer» @«Customer») («Total» @«Total»)) (order) (limit ) (offset ))",
            "from index 'Orders/ByCustomer' where startsWith(Customer, 'acme') and OrderedAt >= $from select id(), Customer, Total"
        },
        {
            "from Orders where search(Notes, 'late delivery') or Tags in ('urgent', 'vip') order by Total desc, Id limit 20 offset 40",
            "(query (Collection «Orders») (where (or (search @«Notes» s:«late delivery») (in @«Tags» s:«urgent» s:«vip»))) (group) (select) (order (@«Total» desc Default) (#id asc Default)) (limit n:20=20) (offset n:40=40))",
            "from Orders where search(Notes, 'late delivery') or Tags in ('urgent', 'vip') order by Total desc, id() limit 20 offset 40"
        },
        {
            "from Orders where exists(Discount) and not Status = 'cancelled'",
            "(query (Collection «Orders») (where (and (exists @«Discount») (not (Equal @«Status» s:«cancelled»)))) (group) (select) (order) (limit ) (offset ))",
            "from Orders where exists(Discount) and not Status = 'cancelled'"
        },
        {
            "from Orders group by Status select Status, count(), sum(Total), avg(Total)",
            "(query (Collection «Orders») (where ) (group @«Status») (select («Status» @«Status») («count()» (Count)) («sum(Total)» (Sum @«Total»)) («avg(Total)» (Avg @«Total»))) (order) (limit ) (offset ))",
            "from Orders group by Status select Status, count(), sum(Total), avg(Total)"
        },
        {
            "from Orders where OrderedAt between $from and $to group by time(OrderedAt, '5m') select count(), sum(Total)",
            "(query (Collection «Orders») (where (between @«OrderedAt» $«from» $«to»)) (group (time @«OrderedAt» s:«5m»)) (select («count()» (Count)) («sum(Total)» (Sum @«Total»))) (order) (limit ) (offset ))",
            "from Orders where OrderedAt between $from and $to group by time(OrderedAt, '5m') select count(), sum(Total)"
        },
        {
            "from Orders select facet(Status), facet(Total, ranges(0, 10, 100, 1000))",
            "(query (Collection «Orders») (where ) (group) (select («facet(Status)» (facet @«Status»)) («facet(Total, ranges(0, 10, 100, 1000))» (facet @«Total» n:0=0 n:10=10 n:100=100 n:1000=1000))) (order) (limit ) (offset ))",
            "from Orders select facet(Status), facet(Total, ranges(0, 10, 100, 1000))"
        },
    };

    [Theory]
    [MemberData(nameof(Examples))]
    public void Example_parses_to_its_tree_and_formats_canonically(string text, string tree, string canonical)
    {
        var query = QueryParser.Parse(text);

        Assert.Equal(tree, SyntaxTreeDump.Dump(query));
        Assert.Equal(canonical, QueryFormatter.Format(query));
        Assert.Equal(tree, SyntaxTreeDump.Dump(QueryParser.Parse(canonical)));
    }

    [Fact]
    public void The_issue_error_example_names_line_column_and_what_was_expected()
    {
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse("from Orders where Status = order by Total"));

        Assert.Equal("line 1, col 28: expected a value after '=' but found 'order'", error.Message);
        Assert.Equal(new SourcePosition(27, 1, 28), error.Position);
    }
}
