using System.Globalization;
using System.Text.Json;
using Ingest.Documents;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Operations;

/// <summary>With Ingest:Documents:Compression on, every reader sees the JSON and GET /stats shows what compression saves.</summary>
public sealed class CompressionEndpointsTests
{
    private static string Order(int i) => string.Create(
        CultureInfo.InvariantCulture,
        $"{{\"customer\":\"customers/{i % 5}\",\"total\":{i * 2.5},\"lines\":[{{\"product\":\"Chef Anton's Cajun Seasoning\",\"quantity\":{i % 7}}},{{\"product\":\"Grandma's Boysenberry Spread\",\"quantity\":2}}],\"note\":\"ordered through the web shop, order {i}\"}}");

    [Fact]
    public async Task Compressed_documents_read_back_through_get_paging_and_queries_and_stats_show_the_ratio()
    {
        await using var server = await StartAsync("--Ingest:Documents:Compression=true", "--Ingest:Documents:CompressionDictionaryTrainingDocuments=20");
        Assert.True(server.Store.Options.Compression);
        for (var b = 0; b < 3; b++)
        {
            var batch = new WriteBatch();
            for (var i = b * 20; i < (b + 1) * 20; i++)
            {
                batch.Put($"orders/{i}", "Orders", Order(i));
            }

            await server.Store.WriteAsync(batch);
        }

        using (var reader = server.Store.BeginRead())
        {
            Assert.True(reader.TryGet("orders/55", out var view));
            Assert.Equal(DocumentFlags.Compressed, view.Flags);
        }

        Assert.Equal(Order(55), await server.Client.GetStringAsync(Relative("/docs/orders/55")));
        var page = await server.GetJsonAsync("/docs?collection=Orders&pageSize=100");
        var items = page.GetProperty("items").EnumerateArray().ToList();
        Assert.Equal(60, items.Count);
        Assert.All(items, item => Assert.Equal(
            Order(int.Parse(item.GetProperty("id").GetString()!["orders/".Length..], CultureInfo.InvariantCulture)),
            item.GetProperty("document").GetRawText()));

        using var response = await Ingest.Server.Tests.Queries.QueryTestKit.PostAsync(server.Client, "from Orders where customer = 'customers/3' select total");
        response.EnsureSuccessStatusCode();
        using var answer = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var query = answer.RootElement;
        var totals = query.GetProperty("results").EnumerateArray().Select(r => r.GetProperty("total").GetDouble()).Order().ToList();
        Assert.Equal(Enumerable.Range(0, 60).Where(i => i % 5 == 3).Select(i => i * 2.5).ToList(), totals);

        var stats = await server.GetJsonAsync("/stats");
        var orders = stats.GetProperty("collections").EnumerateArray().Single();
        var bodyBytes = orders.GetProperty("bodyBytes").GetInt64();
        var stored = orders.GetProperty("storedBodyBytes").GetInt64();
        Assert.Equal(Enumerable.Range(0, 60).Sum(i => (long)Order(i).Length), bodyBytes);
        Assert.True(stored < bodyBytes / 2, $"stored {stored} of {bodyBytes}");
        Assert.Equal(Math.Round((double)bodyBytes / stored, 3), orders.GetProperty("compressionRatio").GetDouble());
        Assert.NotEqual(0, orders.GetProperty("compressionDictionary").GetInt64());
    }

    [Fact]
    public async Task Compression_is_off_by_default_and_stats_then_show_a_ratio_of_1()
    {
        await using var server = await StartAsync();
        Assert.False(server.Store.Options.Compression);
        await server.Store.WriteAsync(new WriteBatch().Put("orders/1", "Orders", Order(1)));

        var orders = (await server.GetJsonAsync("/stats")).GetProperty("collections").EnumerateArray().Single();

        Assert.Equal(orders.GetProperty("bodyBytes").GetInt64(), orders.GetProperty("storedBodyBytes").GetInt64());
        Assert.Equal(1, orders.GetProperty("compressionRatio").GetDouble());
        Assert.Equal(JsonValueKind.Number, orders.GetProperty("compressionDictionary").ValueKind);
    }
}
