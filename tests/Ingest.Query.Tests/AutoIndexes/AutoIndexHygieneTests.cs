using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.AutoIndexes;

/// <summary>Mistyped queries answer with a warning (or a 400) and leave the automatic indexes as they were.</summary>
public sealed class AutoIndexHygieneTests
{
    private static readonly Dictionary<string, JsonElement> NoParameters = [];

    [Fact]
    public async Task A_query_on_a_collection_with_no_documents_makes_no_index_and_names_the_collection()
    {
        await using var host = await OrdersAsync();

        using var query = await host.Engine.StartAsync("from Ordrs where Customer = 'acme'", NoParameters);

        Assert.Equal(0, query.Results.TotalResults);
        Assert.Equal(0, await RowsAsync(query));
        var warning = Assert.Single(query.Warnings);
        Assert.Contains("unknown collection 'Ordrs'", warning, StringComparison.Ordinal);
        Assert.Contains("did you mean 'Orders'?", warning, StringComparison.Ordinal);
        Assert.Empty(host.Indexes.GetStatuses());

        // A scan (no field) says so too, and an explain shows why nothing matches.
        using var scan = await host.Engine.StartAsync("from Ordrs", NoParameters);
        Assert.Contains("unknown collection 'Ordrs'", Assert.Single(scan.Warnings), StringComparison.Ordinal);
        var (_, plan) = await host.Engine.ExplainAsync("from Ordrs where Customer = 'acme'", NoParameters);
        Assert.Equal("nothing", Assert.Single(plan.Steps).Operation);
        Assert.Empty(host.Indexes.GetStatuses());
    }

    [Fact]
    public async Task A_condition_on_a_field_no_document_has_neither_creates_nor_widens_an_index()
    {
        await using var host = await OrdersAsync();

        using (var typo = await host.Engine.StartAsync("from Orders where Custmer = 'acme'", NoParameters))
        {
            Assert.Equal(0, await RowsAsync(typo));
            var warning = Assert.Single(typo.Warnings);
            Assert.Contains("unknown field 'Custmer' in Orders", warning, StringComparison.Ordinal);
            Assert.Contains("did you mean 'Customer'?", warning, StringComparison.Ordinal);
        }

        Assert.Empty(host.Indexes.GetStatuses());

        using (var right = await host.Engine.StartAsync("from Orders where Customer = 'acme'", NoParameters))
        {
            Assert.True(right.IndexCreated);
            Assert.Empty(right.Warnings);
        }

        var before = IndexNames(host);
        using (var widening = await host.Engine.StartAsync("from Orders where Customer = 'acme' and DiScount > 3", NoParameters))
        {
            Assert.Equal(0, await RowsAsync(widening));
            Assert.Contains("unknown field 'DiScount' in Orders", Assert.Single(widening.Warnings), StringComparison.Ordinal);
            Assert.Contains("did you mean 'Discount'?", Assert.Single(widening.Warnings), StringComparison.Ordinal);
        }

        Assert.Equal(before, IndexNames(host));
    }

    [Theory]
    [InlineData("from Orders where Customer = 'c1' and (Custmer = 'b' and Total > 3)")]
    [InlineData("from Orders where Custmer in ('a', 'b') or startsWith(Custmer, 'x')")]
    [InlineData("from Orders where Custmer between 1 and 5 and not Customer = 'c1' select Customer")]
    public async Task A_condition_that_needs_a_value_in_a_field_no_document_has_matches_nothing(string text)
    {
        await using var host = await OrdersAsync();

        using var query = await host.Engine.StartAsync(text, NoParameters);

        Assert.Equal(0, await RowsAsync(query));
        Assert.Contains("unknown field 'Custmer' in Orders", Assert.Single(query.Warnings), StringComparison.Ordinal);
        Assert.Empty(host.Indexes.GetStatuses());
    }

    [Theory]
    [InlineData("from Orders where not Custmer = 'acme'")]
    [InlineData("from Orders where Custmer != 'acme'")]
    [InlineData("from Orders where Customer = 'a' or Custmer = 'b'")]
    [InlineData("from Orders order by Custmer")]
    [InlineData("from Orders group by Custmer select Custmer, count()")]
    public async Task A_field_no_document_has_is_refused_where_an_empty_answer_would_be_wrong(string text)
    {
        var column = text.IndexOf("Custmer", StringComparison.Ordinal) + 1;
        await using var host = await OrdersAsync();

        var error = await Assert.ThrowsAsync<QueryException>(() => host.Engine.StartAsync(text, NoParameters));

        Assert.Contains("unknown field 'Custmer' in Orders", error.Detail, StringComparison.Ordinal);
        Assert.Contains("did you mean 'Customer'?", error.Detail, StringComparison.Ordinal);
        Assert.Equal(column, error.Position.Column);
        Assert.Empty(host.Indexes.GetStatuses());
    }

    [Fact]
    public async Task A_field_only_the_newest_documents_have_is_known()
    {
        await using var host = await QueryHost.OpenAsync();
        await host.PutAsync("Orders", Enumerable.Range(0, 600).Select(i => ($"orders/{i}", $$"""{"Customer":"c{{i}}"}""")));
        await host.PutAsync("Orders", [("orders/new", """{"Customer":"late","Region":"EU"}""")]);

        using var query = await host.Engine.StartAsync("from Orders where Region = 'EU'", NoParameters, new QueryOptions { WaitForNonStale = TimeSpan.FromSeconds(60) });

        Assert.Empty(query.Warnings);
        Assert.True(query.IndexCreated);
        Assert.Equal(1, await RowsAsync(query));
    }

    [Fact]
    public async Task A_collection_with_as_many_automatic_indexes_as_allowed_gets_no_more()
    {
        await using var host = await AutoIndexHost.OpenAsync(new AutoIndexOptions { MaxAutoIndexesPerCollection = 1 });
        await host.PutAsync(("orders/1", """{"Customer":"acme","Total":12.5}"""));
        var position = new SourcePosition(0, 1, 1);
        await host.Chooser.ChooseAsync("Orders", [new IndexFieldNeed("Customer", [], null, IndexFieldType.Keyword, position)]);

        var error = await Assert.ThrowsAsync<AutoIndexLimitException>(
            () => host.Chooser.ChooseAsync("Orders", [new IndexFieldNeed("Total", [], null, IndexFieldType.Number, position)]));

        Assert.Contains("collection 'Orders' has 1 automatic indexes", error.Message, StringComparison.Ordinal);
        Assert.Contains("Ingest:Queries:MaxAutoIndexesPerCollection", error.Message, StringComparison.Ordinal);
        Assert.Equal(["Auto/Orders/ByCustomer"], host.IndexNames());
    }

    private static async Task<QueryHost> OrdersAsync()
    {
        var host = await QueryHost.OpenAsync();
        await host.PutAsync("Orders", Enumerable.Range(0, 20).Select(i => ($"orders/{i}", $$"""{"Customer":"c{{i % 3}}","Total":{{i}},"Discount":{{i % 4}}}""")));
        return host;
    }

    private static List<string> IndexNames(QueryHost host) => [.. host.Indexes.GetStatuses().Select(s => s.Definition.Name).Order(StringComparer.Ordinal)];

    private static async Task<int> RowsAsync(RunningQuery query)
    {
        var buffer = new MemoryStream();
        await using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            await query.Results.WriteResultsAsync(writer, async ct => await writer.FlushAsync(ct), CancellationToken.None);
            writer.WriteEndArray();
        }

        using var json = JsonDocument.Parse(buffer.ToArray());
        return json.RootElement.GetArrayLength();
    }
}
