using System.Text.Json.Nodes;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Aggregation;

public sealed class AggregationTests : IAsyncLifetime
{
    private AggregationHost _host = null!;

    public async Task InitializeAsync()
    {
        _host = await AggregationHost.OpenAsync();
        await _host.WriteAsync(
            """{"Status":"Shipped","Total":10,"OrderedAt":"2024-01-31T23:59:59Z","Paid":true,"Tags":["a","b"],"Scores":[5,7,50]}""",
            """{"Status":"shipped","Total":30.5,"OrderedAt":"2024-02-29T12:00:00Z","Paid":false,"Tags":["b"],"Scores":[10]}""",
            """{"Status":"Pending","Total":"n/a","OrderedAt":"2024-03-01T00:00:00Z","Tags":[]}""",
            """{"Status":"pending","OrderedAt":"2023-12-31T23:59:59.999Z","Paid":true,"Notes":"late delivery"}""",
            """{"Total":100,"OrderedAt":"2025-01-01T00:00:00Z","Tags":["A","c"],"Scores":[100,1000]}""",
            """{"Status":42,"Total":-5}""");
    }

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Fact]
    public void Group_by_a_keyword_counts_folded_values_and_aggregates_the_column()
    {
        var rows = _host.Run("from Orders group by Status select Status, count(), count(Total), sum(Total), avg(Total), min(Total), max(OrderedAt)");

        Assert.Equal(
            """[{"Status":"pending","count()":2,"count(Total)":0,"sum(Total)":0,"avg(Total)":null,"min(Total)":null,"max(OrderedAt)":"2024-03-01T00:00:00Z"},"""
            + """{"Status":"shipped","count()":2,"count(Total)":2,"sum(Total)":40.5,"avg(Total)":20.25,"min(Total)":10,"max(OrderedAt)":"2024-02-29T12:00:00Z"}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Without_group_by_one_row_covers_the_match_set_even_when_it_is_empty()
    {
        Assert.Equal(
            """[{"count()":6,"sum(Total)":135.5,"min(OrderedAt)":"2023-12-31T23:59:59.999Z","count(Status)":4,"count(Paid)":3}]""",
            _host.Run("from Orders select count(), sum(Total), min(OrderedAt), count(Status), count(Paid)").ToJsonString());
        Assert.Equal(
            """[{"count()":0,"sum(Total)":0,"avg(Total)":null}]""",
            _host.Run("from Orders select count(), sum(Total), avg(Total)", documents: []).ToJsonString());
    }

    [Fact]
    public void A_multi_valued_key_puts_the_document_in_each_of_its_groups_and_a_missing_one_in_none()
    {
        var rows = _host.Run("from Orders group by Tags select count(), sum(Total)");

        Assert.Equal(
            """[{"Tags":"a","count()":2,"sum(Total)":110},{"Tags":"b","count()":2,"sum(Total)":40.5},{"Tags":"c","count()":1,"sum(Total)":100}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Two_keys_combine_every_value_of_each()
    {
        var rows = _host.Run("from Orders group by Paid, Tags select count()");

        Assert.Equal(
            """[{"Paid":false,"Tags":"b","count()":1},{"Paid":true,"Tags":"a","count()":1},{"Paid":true,"Tags":"b","count()":1}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Calendar_months_hold_whole_months_including_the_leap_day()
    {
        var rows = _host.Run("from Orders group by time(OrderedAt, '1M') select count()");

        Assert.Equal(
            """[{"time":"2023-12-01T00:00:00Z","count()":1},{"time":"2024-01-01T00:00:00Z","count()":1},{"time":"2024-02-01T00:00:00Z","count()":1},"""
            + """{"time":"2024-03-01T00:00:00Z","count()":1},{"time":"2025-01-01T00:00:00Z","count()":1}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Years_and_multi_month_buckets_align_to_1970()
    {
        Assert.Equal(
            """[{"time":"2023-01-01T00:00:00Z","count()":1},{"time":"2024-01-01T00:00:00Z","count()":3},{"time":"2025-01-01T00:00:00Z","count()":1}]""",
            _host.Run("from Orders group by time(OrderedAt, '1y') select count()").ToJsonString());

        // 5-month buckets from 1970-01: month 645 (2023-10) holds 2023-12, 2024-01 and 2024-02; 650 is 2024-03; 660 is 2025-01.
        Assert.Equal(
            """[{"time":"2023-10-01T00:00:00Z","count()":3},{"time":"2024-03-01T00:00:00Z","count()":1},{"time":"2025-01-01T00:00:00Z","count()":1}]""",
            _host.Run("from Orders group by time(OrderedAt, $i) select count()", parameters: """{"i":"5M"}""").ToJsonString());
    }

    [Fact]
    public void Weeks_start_on_monday()
    {
        // 2024-01-31 is a Wednesday: its week starts Monday 2024-01-29; 2024-02-29 is a Thursday (Monday 02-26);
        // 2024-03-01 a Friday (same week); 2023-12-31 a Sunday (Monday 12-25).
        Assert.Equal(
            """[{"time":"2023-12-25T00:00:00Z","count()":1},{"time":"2024-01-29T00:00:00Z","count()":1},{"time":"2024-02-26T00:00:00Z","count()":2}]""",
            _host.Run("from Orders group by time(OrderedAt, '1w') select count()", documents: [0, 1, 2, 3]).ToJsonString());
    }

    [Fact]
    public void Fixed_buckets_keep_the_last_instant_of_a_day_in_that_day()
    {
        Assert.Equal(
            """[{"time":"2023-12-31T00:00:00Z","count()":1},{"time":"2024-01-31T00:00:00Z","count()":1}]""",
            _host.Run("from Orders group by time(OrderedAt, '1d') select count()", documents: [0, 3]).ToJsonString());
    }

    [Fact]
    public void Value_facets_count_each_value_once_per_document_by_descending_count()
    {
        var rows = _host.Run("from Orders select facet(Tags), facet(Paid), facet(Scores)");

        Assert.Equal(
            """[{"facet":"facet(Tags)","value":"a","count":2},{"facet":"facet(Tags)","value":"b","count":2},{"facet":"facet(Tags)","value":"c","count":1},"""
            + """{"facet":"facet(Paid)","value":true,"count":2},{"facet":"facet(Paid)","value":false,"count":1},"""
            + """{"facet":"facet(Scores)","value":5,"count":1},{"facet":"facet(Scores)","value":7,"count":1},{"facet":"facet(Scores)","value":10,"count":1},"""
            + """{"facet":"facet(Scores)","value":50,"count":1},{"facet":"facet(Scores)","value":100,"count":1},{"facet":"facet(Scores)","value":1000,"count":1}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Range_facets_put_a_boundary_in_the_range_it_starts_and_count_a_document_once_per_range()
    {
        var rows = _host.Run("from Orders select facet(Scores, ranges(7, 50, 100)) as s, facet(Total, ranges(10, 100))");

        // Scores: [5,7,50] -> [-inf,7), [7,50) and [50,100); [10] -> [7,50); [100,1000] -> [100,inf) once.
        Assert.Equal(
            """[{"facet":"s","range":"[-inf, 7)","count":1},{"facet":"s","range":"[7, 50)","count":2},{"facet":"s","range":"[50, 100)","count":1},{"facet":"s","range":"[100, inf)","count":1},"""
            + """{"facet":"facet(Total, ranges(10, 100))","range":"[-inf, 10)","count":1},{"facet":"facet(Total, ranges(10, 100))","range":"[10, 100)","count":2},{"facet":"facet(Total, ranges(10, 100))","range":"[100, inf)","count":1}]""",
            rows.ToJsonString());
    }

    [Fact]
    public void Order_by_an_aggregate_then_limit_and_offset_page_the_groups()
    {
        Assert.Equal(
            """[{"Tags":"a","count()":2,"sum(Total)":110},{"Tags":"c","count()":1,"sum(Total)":100}]""",
            _host.Run("from Orders group by Tags select count(), sum(Total) order by count() desc, sum(Total) limit 2 offset 1").ToJsonString());
        Assert.Equal(
            """[{"Tags":"c","n":1},{"Tags":"b","n":2},{"Tags":"a","n":2}]""",
            _host.Run("from Orders group by Tags select count() as n order by Tags desc").ToJsonString());
        Assert.Equal(
            """[{"Status":"shipped"},{"Status":"pending"}]""",
            _host.Run("from Orders group by Status select Status order by max(Total) desc").ToJsonString());
    }

    [Theory]
    [InlineData("from Orders group by time(OrderedAt, '5x') select count()", "line 1, col 38: invalid time interval '5x'; expected a positive integer and a unit (ms, s, m, h, d, w, M, y), like '5m' or '1M'")]
    [InlineData("from Orders group by time(OrderedAt, '0m') select count()", "line 1, col 38: invalid time interval '0m'")]
    [InlineData("from Orders group by time(Total, '5m') select count()", "line 1, col 27: time() needs a datetime field; 'Total' is a number field")]
    [InlineData("from Orders group by Status select sum(Status)", "line 1, col 40: sum() needs a number field; 'Status' is a keyword field")]
    [InlineData("from Orders group by Statuz select count()", "line 1, col 22: unknown field 'Statuz' in index 'Orders/ForAggregation'; fields are Status, Total")]
    [InlineData("from Orders group by Status select Total, count()", "line 1, col 36: field 'Total' is not a group key; add it to group by or use an aggregate")]
    [InlineData("from Orders group by Notes select count()", "line 1, col 22: cannot group by text field 'Notes'")]
    [InlineData("from Orders group by Status select facet(Tags)", "line 1, col 22: facet() cannot be combined with group by")]
    [InlineData("from Orders select facet(Total, ranges(10, 5))", "line 1, col 44: range boundaries must ascend")]
    [InlineData("from Orders select facet(Status, ranges(1))", "line 1, col 26: range facets need a number field; 'Status' is a keyword field")]
    [InlineData("from Orders group by Status, Tags, Paid, Total, OrderedAt, Scores, Status, Tags, Paid select count()", "line 1, col 82: at most 8 group keys")]
    [InlineData("from Orders group by Status select count() limit $n", "line 1, col 50: limit must be a non-negative integer but found $n = -1")]
    public void Bad_aggregations_are_refused_at_their_position(string query, string message)
    {
        var error = Assert.Throws<QueryException>(() => AggregationHost.Bind(query, """{"n":-1}"""));
        Assert.StartsWith(message, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Too_many_time_buckets_over_the_matched_range_are_refused_before_any_row()
    {
        var error = Assert.Throws<QueryException>(() => _host.Run("from Orders group by time(OrderedAt, '1m') select count()"));
        Assert.StartsWith("line 1, col 38: time interval '1m' gives", error.Message, StringComparison.Ordinal);
        Assert.Contains("at most 100,000", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_documents_query_is_not_an_aggregation()
    {
        Assert.Null(Ingest.Query.Aggregation.AggregationQuery.TryBind(QueryParser.Parse("from Orders where Total > 5 select Status"), AggregationHost.Orders, p => default));
    }

    internal static JsonArray Rows(string json) => JsonNode.Parse(json)!.AsArray();
}
