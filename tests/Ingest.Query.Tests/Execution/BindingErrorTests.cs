using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Execution;

/// <summary>Every binding error is a QueryException naming the position of what is wrong.</summary>
public sealed class BindingErrorTests : IAsyncLifetime
{
    private QueryHost _host = null!;

    public async Task InitializeAsync() => _host = await QueryHost.OpenAsync(OrdersFixture.Definition);

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Theory]
    [InlineData("where Totl = 5", "Totl", "unknown field 'Totl' in index 'Orders/All'; fields are Status, Customer, Total, OrderedAt, Paid, Notes, Tags (and id())")]
    [InlineData("where Total = 'abc'", "'abc'", "field 'Total' is a number; expected a number but found 'abc'")]
    [InlineData("where Paid = 1", "1", "field 'Paid' is a bool; expected true or false but found 1")]
    [InlineData("where Status in ('a', 2)", "2", "field 'Status' is a keyword; expected a string but found 2")]
    [InlineData("where OrderedAt > 'yesterday'", "'yesterday'", "field 'OrderedAt' is a datetime; expected an ISO 8601 date string or a number of epoch milliseconds but found 'yesterday'")]
    [InlineData("where Total > $min", "$min", "missing parameter '$min'; no parameters were passed")]
    [InlineData("where Notes = 'late'", "Notes", "field 'Notes' is a text field, matched by its words: use search(Notes, '...') instead of '='")]
    [InlineData("where startsWith(Total, '1')", "Total", "startsWith needs a keyword field but 'Total' is a number")]
    [InlineData("where search(Status, 'open')", "Status", "search needs a text field but 'Status' is a keyword")]
    [InlineData("where Total < null", "null", "null can only be compared with = or != but found '<'")]
    [InlineData("where id() > 'a'", "id()", "id() can be compared with =, !=, in and startsWith but not '>'")]
    [InlineData("order by Notes", "Notes", "cannot order by 'Notes': it is a text field (its words are indexed, not its value)")]
    [InlineData("order by Total as string", "Total", "cannot order 'Total' as string: it is a number and orders as one")]
    public void Errors_name_the_problem_at_its_position(string tail, string at, string detail)
    {
        var text = $"from index '{OrdersFixture.Index}' {tail}";
        var parsed = QueryParser.Parse(text);

        var error = Assert.Throws<QueryException>(() => _host.Prepare(parsed));

        Assert.Equal($"line 1, col {text.IndexOf(at, text.IndexOf(tail, StringComparison.Ordinal), StringComparison.Ordinal) + 1}: {detail}", error.Message);
    }

    [Fact]
    public void A_parameter_of_the_wrong_type_is_reported_at_the_parameter()
    {
        var text = $"from index '{OrdersFixture.Index}' where Total between $low and $high";

        var error = Assert.Throws<QueryException>(() => _host.Prepare(QueryParser.Parse(text), new { low = 1, high = "x" }));

        Assert.Equal($"line 1, col {text.IndexOf("$high", StringComparison.Ordinal) + 1}: field 'Total' is a number; expected a number but found 'x'", error.Message);
    }

    [Fact]
    public void A_token_that_was_not_issued_by_the_server_is_refused()
    {
        var parsed = QueryParser.Parse($"from index '{OrdersFixture.Index}' limit 1");

        var error = Assert.Throws<QueryException>(() => _host.Prepare(parsed, continuation: "bm90IGEgdG9rZW4"));

        Assert.StartsWith("the continuation token is not valid", error.Message, StringComparison.Ordinal);
    }
}
