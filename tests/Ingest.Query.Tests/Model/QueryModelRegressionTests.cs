using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.Model;

/// <summary>Minimal queries from model-test failures, run through the real pipeline against the brute-force evaluator.</summary>
public sealed class QueryModelRegressionTests
{
    private static readonly List<ModelDocument> Documents =
    [
        Document("orders/1", 0, """{"OrderedAt":"2024-04-23T08:00:00Z","Total":5}"""),
        Document("orders/2", 1, """{"OrderedAt":"2024-04-24T09:00:00Z","Total":7}"""),
        Document("orders/3", 2, """{"OrderedAt":"2024-05-06T00:00:00Z"}"""),
    ];

    /// <summary>Seed 4 of the model test: the select item named the time() key instead of the field key of the same field.</summary>
    [Theory]
    [InlineData("from index 'Orders/Model' group by time(OrderedAt, '7d'), OrderedAt select OrderedAt, count()")]
    [InlineData("from index 'Orders/Model' group by time(OrderedAt, '7d'), OrderedAt select OrderedAt as At, sum(Total) order by OrderedAt desc")]
    public async Task A_selected_field_is_the_field_key_not_a_time_key_of_the_same_field(string text)
    {
        var (page, expected) = await RunAsync(text);

        Assert.Equal(expected.Rows.Select(r => r.ToJsonString()), page.Rows.Select(r => JsonNode.Parse(r.GetRawText())!.ToJsonString()));
    }

    /// <summary>Seed 1 with collection scans: a scan's <c>select count()</c> said totalResults = the documents counted, an index's said 1 (its rows).</summary>
    [Theory]
    [InlineData("from Orders select count()")]
    [InlineData("from Orders where startsWith(id(), 'orders/') and id() != 'orders/2' select count() as n")]
    [InlineData("from index 'Orders/Model' select count()")]
    public async Task Select_count_has_one_row_and_a_total_of_one_with_or_without_an_index(string text)
    {
        var (page, expected) = await RunAsync(text);

        Assert.Equal(expected.Rows.Select(r => r.ToJsonString()), page.Rows.Select(r => JsonNode.Parse(r.GetRawText())!.ToJsonString()));
        Assert.Equal(1, expected.Total);
        Assert.Equal(expected.Total, page.Total);
    }

    /// <summary>The runner's page and the model's answer for the three documents.</summary>
    private static async Task<(QueryHost.Page Page, ModelResult Expected)> RunAsync(string text)
    {
        await using var host = await QueryHost.OpenAsync(ModelIndex.Definition);
        await host.PutAsync(ModelIndex.Collection, Documents.Select(d => (d.Id, d.Json)));
        await host.CatchUpAsync(ModelIndex.Name);
        var page = await host.QueryAsync(text);
        var expected = new ModelEvaluator(ModelIndex.Definition, Documents).Evaluate(QueryParser.Parse(text), new Dictionary<string, JsonElement>());
        return (page, expected);
    }

    private static ModelDocument Document(string id, int entry, string json) => new(id, entry, json, JsonDocument.Parse(json).RootElement.Clone());
}
