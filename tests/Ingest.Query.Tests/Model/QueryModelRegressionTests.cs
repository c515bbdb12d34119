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
        await using var host = await QueryHost.OpenAsync(ModelIndex.Definition);
        await host.PutAsync(ModelIndex.Collection, Documents.Select(d => (d.Id, d.Json)));
        await host.CatchUpAsync(ModelIndex.Name);

        var page = await host.QueryAsync(text);
        var expected = new ModelEvaluator(ModelIndex.Definition, Documents).Evaluate(QueryParser.Parse(text), new Dictionary<string, JsonElement>());

        Assert.Equal(expected.Rows.Select(r => r.ToJsonString()), page.Rows.Select(r => JsonNode.Parse(r.GetRawText())!.ToJsonString()));
    }

    private static ModelDocument Document(string id, int entry, string json) => new(id, entry, json, JsonDocument.Parse(json).RootElement.Clone());
}
