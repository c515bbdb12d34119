using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.Execution;

/// <summary>Eight orders covering missing fields, nulls, wrong types, arrays, casing and dates in several forms.</summary>
internal static class OrdersFixture
{
    public const string Index = "Orders/All";

    public static readonly IndexDefinition Definition = new(
        Index,
        ["Orders"],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Customer", "Customer.Name", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
        ]);

    public static readonly (string Id, string Json)[] Documents =
    [
        ("orders/1", """{"Status":"Shipped","Customer":{"Name":"Acme"},"Total":10,"OrderedAt":"2026-01-01T00:00:00Z","Paid":true,"Notes":"late delivery again","Tags":["urgent","vip"]}"""),
        ("orders/2", """{"Status":"open","Customer":{"Name":"acme corp"},"Total":55.5,"OrderedAt":"2026-01-02","Paid":false,"Notes":"on time","Tags":["vip"]}"""),
        ("orders/3", """{"Status":"cancelled","Customer":{"Name":"Globex"},"Total":100,"OrderedAt":1767312000000,"Tags":[]}"""),
        ("orders/4", """{"Status":null,"Customer":{"Name":"Initech"},"Total":-5,"Notes":"Delivery was late"}"""),
        ("orders/5", """{"Total":"abc","Paid":true}"""),
        ("orders/6", """{"Status":"SHIPPED","Customer":{"Name":"Umbrella"},"Total":1000,"OrderedAt":"2026-02-01T12:00:00+02:00","Tags":["Urgent"]}"""),
        ("orders/7", """{"Status":"open","Customer":{"Name":"Ácme"},"Total":99.99,"Paid":false}"""),
        ("orders/8", """{"Status":"shipped","Total":[20,5]}"""),
    ];

    public static async Task<QueryHost> OpenAsync()
    {
        var host = await QueryHost.OpenAsync(Definition);
        try
        {
            await host.PutAsync("Orders", Documents);
            await host.CatchUpAsync(Index);
            return host;
        }
        catch
        {
            await host.DisposeAsync();
            throw;
        }
    }
}
