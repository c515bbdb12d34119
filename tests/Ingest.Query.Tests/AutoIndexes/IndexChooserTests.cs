using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.AutoIndexes;

public sealed class IndexChooserTests
{
    private static readonly SourcePosition At = new(20, 1, 21);

    [Fact]
    public async Task A_query_on_a_collection_without_an_index_creates_an_automatic_index()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync(("orders/1", """{"Customer":"acme","Total":12.5}"""), ("orders/2", """{"Customer":"globex","Total":7}"""));

        var chosen = await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword), Compared("Total", IndexFieldType.Number)]);

        Assert.Equal(new AnsweringIndex("Auto/Orders/ByCustomerAndTotal", IsAutomatic: true, Created: true), chosen);
        var definition = host.Indexes.GetStatus(chosen.Name)!.Definition;
        Assert.Equal(["Orders"], definition.Collections);
        Assert.Equal(
            [new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword), new IndexFieldDefinition("Total", "Total", IndexFieldType.Number)],
            definition.Fields);
        await host.CatchUpAsync(chosen.Name);
        Assert.Equal(2, host.Indexes.GetStatus(chosen.Name)!.EntryCount);

        // The same fields again, in another order and casing: the same index, not a new one.
        var again = await host.Chooser.ChooseAsync("orders", [Compared("total", IndexFieldType.Number), Compared("customer", IndexFieldType.Keyword)]);
        Assert.Equal(new AnsweringIndex("Auto/Orders/ByCustomerAndTotal", IsAutomatic: true, Created: false), again);
        Assert.Single(host.IndexNames());
    }

    [Fact]
    public async Task Field_types_come_from_use_then_the_documents_then_the_literal_then_keyword()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync(
            ("orders/1", """{"OrderedAt":"2026-11-01T10:00:00Z","Lines":[{"Qty":2},{"Qty":"x"},{"Qty":3}],"Paid":true,"Notes":"late"}"""),
            ("orders/2", """{"OrderedAt":"2026-11-02T10:00:00Z","Lines":[],"Paid":false,"Notes":"fine"}"""));

        var chosen = await host.Chooser.ChooseAsync(
            "Orders",
            [
                new IndexFieldNeed("Notes", [IndexFieldType.Text], "search()", IndexFieldType.Keyword, At),
                Compared("OrderedAt", IndexFieldType.Keyword),
                Compared("Lines[].Qty", IndexFieldType.Keyword),
                Compared("Paid", null),
                Compared("Discount", IndexFieldType.Number),
                Compared("Region", null),
            ]);

        var types = host.Indexes.GetStatus(chosen.Name)!.Definition.Fields.ToDictionary(f => f.Name, f => f.Type);
        Assert.Equal(IndexFieldType.Text, types["Notes"]);          // use: search()
        Assert.Equal(IndexFieldType.DateTime, types["OrderedAt"]);  // documents: ISO 8601 strings, though compared with a string
        Assert.Equal(IndexFieldType.Number, types["Lines[].Qty"]);  // documents: mostly numbers
        Assert.Equal(IndexFieldType.Bool, types["Paid"]);           // documents
        Assert.Equal(IndexFieldType.Number, types["Discount"]);     // in no document: the literal
        Assert.Equal(IndexFieldType.Keyword, types["Region"]);      // nothing to go on
        Assert.Equal("Auto/Orders/ByDiscountAndLinesQtyAndNotesAndOrderedAtAndPaidAndRegion", chosen.Name);
    }

    [Fact]
    public async Task A_parsed_query_gets_its_field_types_from_its_uses_and_the_documents()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync(("orders/1", """{"OrderedAt":"2026-11-01T10:00:00Z","Notes":"late","Customer":"acme","Total":5,"Code":"x"}"""));
        var query = QueryParser.Parse("from Orders where OrderedAt >= $from and search(Notes, 'late') and startsWith(Customer, 'a') select Code order by Total");
        var needs = IndexFieldNeeds.From(Ingest.Query.Execution.QueryFieldUsage.Collect(query, Ingest.Query.Binding.QueryParameters.None));

        var chosen = await host.Chooser.ChooseAsync("Orders", needs);

        Assert.Equal(
            [("Customer", IndexFieldType.Keyword), ("Notes", IndexFieldType.Text), ("OrderedAt", IndexFieldType.DateTime), ("Total", IndexFieldType.Number)],
            host.Indexes.GetStatus(chosen.Name)!.Definition.Fields.Select(f => (f.Name, f.Type)));
    }

    [Fact]
    public async Task A_query_needing_another_field_extends_the_automatic_index_and_the_smaller_one_goes_once_the_larger_caught_up()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync([.. Enumerable.Range(0, 500).Select(i => ($"orders/{i}", $$"""{"Customer":"c{{i % 7}}","Total":{{i}}}"""))]);
        var first = await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword)]);
        await host.CatchUpAsync(first.Name);

        var extended = await host.Chooser.ChooseAsync("Orders", [Compared("Total", IndexFieldType.Number)]);

        Assert.Equal("Auto/Orders/ByCustomer", first.Name);
        Assert.Equal(new AnsweringIndex("Auto/Orders/ByCustomerAndTotal", IsAutomatic: true, Created: true), extended);
        Assert.Equal(["Customer", "Total"], host.Indexes.GetStatus(extended.Name)!.Definition.Fields.Select(f => f.Name));
        await host.CatchUpAsync(extended.Name);
        await WaitUntilAsync(() => !host.IndexNames().Contains(first.Name), "the smaller automatic index deleted");
        Assert.Equal([extended.Name], host.IndexNames());

        // A query on the first field alone is now answered by the extended index.
        Assert.Equal(extended.Name, (await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword)])).Name);
    }

    [Fact]
    public async Task A_covering_static_index_answers_and_one_of_the_wrong_type_does_not()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync(("orders/1", """{"customer":"acme","total":3}"""));
        await host.Indexes.PutAsync(new IndexDefinition("Orders/ByCustomer", ["Orders"], [new IndexFieldDefinition("Customer", "customer", IndexFieldType.Keyword), new IndexFieldDefinition("Total", "total", IndexFieldType.Keyword)]));
        await host.Indexes.PutAsync(new IndexDefinition("Everything/ByCustomer", ["Orders", "Invoices"], [new IndexFieldDefinition("Customer", "customer", IndexFieldType.Keyword)]));

        var byCustomer = await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword)]);
        var sum = await host.Chooser.ChooseAsync("Orders", [new IndexFieldNeed("Total", [IndexFieldType.Number], "sum()", null, At)]);
        var numberLiteral = await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword), Compared("Total", IndexFieldType.Number)]);

        Assert.Equal(new AnsweringIndex("Orders/ByCustomer", IsAutomatic: false, Created: false), byCustomer);
        Assert.Equal(new AnsweringIndex("Auto/Orders/ByTotal", IsAutomatic: true, Created: true), sum);
        Assert.Equal("Auto/Orders/ByCustomerAndTotal", numberLiteral.Name);
    }

    [Fact]
    public async Task A_use_the_automatic_index_field_type_rules_out_is_a_query_error_naming_the_index_and_the_type()
    {
        await using var host = await AutoIndexHost.OpenAsync();
        await host.PutAsync(("orders/1", """{"Notes":"late delivery"}"""));
        var keyword = await host.Chooser.ChooseAsync("Orders", [Compared("Notes", IndexFieldType.Keyword)]);

        var error = await Assert.ThrowsAsync<QueryException>(() => host.Chooser.ChooseAsync("Orders", [new IndexFieldNeed("Notes", [IndexFieldType.Text], "search()", IndexFieldType.Keyword, At)]));

        Assert.Equal(At, error.Position);
        Assert.Equal(
            "line 1, col 21: field 'Notes' is a keyword field in automatic index 'Auto/Orders/ByNotes', but search() needs a text field; define a static index of 'Orders' with the type you need",
            error.Message);
        Assert.Equal([keyword.Name], host.IndexNames());
    }

    [Fact]
    public async Task An_automatic_index_unused_for_the_idle_timeout_is_deleted_and_a_static_one_is_not()
    {
        await using var host = await AutoIndexHost.OpenAsync(new AutoIndexOptions { AutoIndexIdleTimeout = TimeSpan.FromMinutes(30) });
        await host.PutAsync(("orders/1", """{"Customer":"acme","Total":3}"""));
        await host.Indexes.PutAsync(new IndexDefinition("Orders/ByCustomer", ["Orders"], [new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword)]));
        var chosen = await host.Chooser.ChooseAsync("Orders", [Compared("Total", IndexFieldType.Number)]);

        host.Time.Advance(TimeSpan.FromMinutes(20));
        Assert.Empty(await host.Chooser.SweepAsync());
        Assert.Equal(chosen.Name, (await host.Chooser.ChooseAsync("Orders", [Compared("Total", IndexFieldType.Number)])).Name);
        host.Time.Advance(TimeSpan.FromMinutes(29));
        Assert.Empty(await host.Chooser.SweepAsync());
        host.Time.Advance(TimeSpan.FromMinutes(2));

        // (A sweep the new index's catch-up started may have done it first; what counts is that it is gone.)
        await host.Chooser.SweepAsync();
        Assert.Equal(["Orders/ByCustomer"], host.IndexNames());
        Assert.Null(host.Chooser.LastUsed(chosen.Name));
    }

    [Fact]
    public async Task Last_used_times_survive_a_restart_so_a_busy_index_stays_and_an_idle_one_still_goes()
    {
        await using var host = await AutoIndexHost.OpenAsync(new AutoIndexOptions { AutoIndexIdleTimeout = TimeSpan.FromMinutes(30) });
        await host.PutAsync(("orders/1", """{"Customer":"acme","Total":3,"Status":"new"}"""));
        var busy = await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword)]);
        await host.Indexes.PutAsync(new IndexDefinition("Auto/Orders/ByTotal", ["Orders"], [new IndexFieldDefinition("Total", "Total", IndexFieldType.Number)]));
        var idle = await host.Chooser.ChooseAsync("Orders", [Compared("Total", IndexFieldType.Number)]);
        Assert.Equal("Auto/Orders/ByTotal", idle.Name);

        host.Time.Advance(TimeSpan.FromMinutes(25));
        await host.Chooser.ChooseAsync("Orders", [Compared("Customer", IndexFieldType.Keyword)]);
        await host.ReopenAsync();
        host.Time.Advance(TimeSpan.FromMinutes(10));

        // 35 minutes since Total's last use, 10 since Customer's: the restart reset neither clock.
        Assert.Equal([idle.Name], await host.Chooser.SweepAsync());
        Assert.Equal([busy.Name], host.IndexNames());
    }

    private static IndexFieldNeed Compared(string path, IndexFieldType? literal) => new(path, [], null, literal, At);

    private static async Task WaitUntilAsync(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"not within 60 s: {what}");
            await Task.Delay(20);
        }
    }
}
