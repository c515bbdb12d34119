using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;

namespace Ingest.Indexing.Tests.Definitions;

/// <summary>A map-reduce definition's JSON: parsed, validated against the index's fields (every problem named), written back.</summary>
public sealed class ReduceDefinitionJsonTests
{
    private const string Fields = """
        "collections":["Orders"],"fields":[
          {"name":"Status","path":"Status","type":"keyword"},
          {"name":"Notes","path":"Notes","type":"text"},
          {"name":"Total","path":"Total","type":"number"},
          {"name":"OrderedAt","path":"OrderedAt","type":"datetime"},
          {"name":"Paid","path":"Paid","type":"bool"}]
        """;

    [Fact]
    public void A_reduce_parses_into_its_definition_and_writes_back_the_same()
    {
        var json = "{\"name\":\"Orders/RevenuePerHour\"," + Fields + """
            ,"reduce":{"groupBy":[{"field":"Status"},{"name":"Hour","field":"OrderedAt","interval":"1h"}],
              "aggregates":[{"name":"Orders","function":"count"},{"name":"Revenue","function":"SUM","field":"Total"},
                            {"name":"Customers","function":"countdistinct","field":"Status"},{"name":"Latest","function":"max","field":"OrderedAt"}]}}
            """;

        var result = IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes(json));

        Assert.True(result.IsValid, string.Join("; ", result.Errors));
        var reduce = result.Definition!.Reduce!;
        Assert.Equal([new GroupKeyDefinition("Status", "Status"), new GroupKeyDefinition("Hour", "OrderedAt", "1h")], reduce.GroupBy);
        Assert.Equal(
            [
                new AggregateDefinition("Orders", AggregateKind.Count),
                new AggregateDefinition("Revenue", AggregateKind.Sum, "Total"),
                new AggregateDefinition("Customers", AggregateKind.CountDistinct, "Status"),
                new AggregateDefinition("Latest", AggregateKind.Max, "OrderedAt"),
            ],
            reduce.Aggregates);
        var written = IndexDefinitionJson.ToUtf8(result.Definition);
        Assert.Contains("\"function\":\"countDistinct\"", Encoding.UTF8.GetString(written), StringComparison.Ordinal);
        Assert.Equal(result.Definition, IndexDefinitionJson.Parse(written).Definition);
        Assert.Empty(IndexDefinitionValidator.Validate(result.Definition));
    }

    [Fact]
    public void A_reduce_is_part_of_the_definition_s_equality()
    {
        var map = IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes("{\"name\":\"A\"," + Fields + "}")).Definition!;
        var reduced = map with { Reduce = new ReduceDefinition([], [new AggregateDefinition("N", AggregateKind.Count)]) };
        var same = map with { Reduce = new ReduceDefinition([], [new AggregateDefinition("N", AggregateKind.Count)]) };

        Assert.NotEqual(map, reduced);
        Assert.Equal(reduced, same);
        Assert.Equal(reduced.GetHashCode(), same.GetHashCode());
    }

    [Fact]
    public void Every_problem_of_a_reduce_is_reported_with_where_it_is_and_the_field_it_names()
    {
        var json = "{\"name\":\"A\"," + Fields + """
            ,"reduce":{"groupBy":[{"field":"Notes"},{"name":"Hour","field":"Total","interval":"1h"},{"name":"Day","field":"OrderedAt","interval":"1 day"},{"field":"Nope"}],
              "aggregates":[{"name":"Revenue","function":"sum","field":"Status"},{"name":"X","function":"median","field":"Total"},
                            {"name":"Revenue","function":"count"},{"name":"Top","function":"max"},{"name":"Words","function":"countDistinct","field":"Notes"}]}}
            """;

        var result = IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes(json));

        Assert.False(result.IsValid);
        var errors = result.Errors.ToDictionary(e => e.Field, e => e.Message);
        Assert.Equal(
            [
                "reduce.aggregates[0].field", "reduce.aggregates[1].function", "reduce.aggregates[2].name", "reduce.aggregates[3].field",
                "reduce.aggregates[4].field", "reduce.groupBy[0].field", "reduce.groupBy[1].interval", "reduce.groupBy[2].interval", "reduce.groupBy[3].field",
            ],
            errors.Keys.Order(StringComparer.Ordinal));
        Assert.Equal("aggregate 'Revenue' is sum of field 'Status' of type keyword; sum needs a number field", errors["reduce.aggregates[0].field"]);
        Assert.Equal("aggregate 'X' has unknown function 'median'; expected one of count, sum, min, max, avg, countDistinct", errors["reduce.aggregates[1].function"]);
        Assert.Contains("same name as reduce.aggregates[0]", errors["reduce.aggregates[2].name"], StringComparison.Ordinal);
        Assert.Equal("aggregate 'Top' (max) needs a field", errors["reduce.aggregates[3].field"]);
        Assert.Contains("text field 'Notes'", errors["reduce.groupBy[0].field"], StringComparison.Ordinal);
        Assert.Contains("time buckets need a datetime field", errors["reduce.groupBy[1].interval"], StringComparison.Ordinal);
        Assert.Equal("group key 'Day' has interval '1 day'; expected a positive integer and a unit (ms, s, m, h, d, w), like '5m' or '1h'", errors["reduce.groupBy[2].interval"]);
        Assert.Equal("group key 'Nope' names field 'Nope', which is not one of the index's fields", errors["reduce.groupBy[3].field"]);
    }

    [Fact]
    public void A_misspelt_reduce_member_is_an_error_not_ignored()
    {
        var json = "{\"name\":\"A\"," + Fields + ",\"reduce\":{\"groupby\":[],\"aggregates\":[{\"name\":\"N\",\"function\":\"count\"}],\"agregates\":[]}}";

        var result = IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes(json));

        var error = Assert.Single(result.Errors);
        Assert.Contains("unknown member", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_reduce_without_aggregates_is_an_error()
    {
        var json = "{\"name\":\"A\"," + Fields + ",\"reduce\":{\"groupBy\":[{\"field\":\"Status\"}]}}";

        var error = Assert.Single(IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes(json)).Errors);

        Assert.Equal("reduce.aggregates", error.Field);
    }
}
