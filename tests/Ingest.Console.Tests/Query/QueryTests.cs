using System.Globalization;
using System.Text;
using System.Text.Json;
using Ingest.Console.Tests.Browser;
using Microsoft.Playwright;

namespace Ingest.Console.Tests.Query;

[Collection(ConsoleCollection.Name)]
public sealed class QueryTests
{
    private readonly ChromiumBrowser _browser;

    public QueryTests(ChromiumBrowser browser) => _browser = browser;

    [Fact]
    public async Task A_query_runs_pages_by_continuation_shows_its_error_at_its_line_and_column_and_charts_time_buckets()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        var start = new DateTime(2026, 11, 23, 9, 0, 0, DateTimeKind.Utc);
        for (var i = 1; i <= 30; i++)
        {
            var at = start.AddMinutes(i * 6).ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture);
            await session.PutAsync($"orders/{i}", "Orders", $$"""{"Customer":"c{{i % 3}}","Total":{{i * 10}},"OrderedAt":"{{at}}"}""");
        }

        await session.LoginAsync("query");
        var page = session.Page;
        var editor = page.GetByRole(AriaRole.Textbox, new() { Name = "Query", Exact = true });

        // A query with a parameter, run with the button, read page by page.
        await editor.FillAsync("from Orders where Total >= $min order by Total limit 10");
        await page.GetByRole(AriaRole.Button, new() { Name = "Add parameter" }).ClickAsync();
        await page.GetByLabel("Name").FillAsync("min");
        await page.GetByLabel("Value").FillAsync("50");
        await page.GetByRole(AriaRole.Button, new() { Name = "Run" }).ClickAsync();
        var first = page.GetByRole(AriaRole.Table, new() { Name = "Results, page 1" });
        await first.WaitForAsync();
        Assert.Equal(10, await first.Locator("tbody tr").CountAsync());
        Assert.Equal("orders/5", await first.Locator("tbody tr").First.Locator("td").First.TextContentAsync());
        Assert.Contains("of 26 results", await page.Locator("p.summary").TextContentAsync() ?? string.Empty, StringComparison.Ordinal);
        await session.AssertAccessibleAsync();

        await page.GetByRole(AriaRole.Button, new() { Name = "Next page" }).ClickAsync();
        var second = page.GetByRole(AriaRole.Table, new() { Name = "Results, page 2" });
        await second.WaitForAsync();
        Assert.Equal("orders/15", await second.Locator("tbody tr").First.Locator("td").First.TextContentAsync());
        await page.GetByRole(AriaRole.Button, new() { Name = "Next page" }).ClickAsync();
        var third = page.GetByRole(AriaRole.Table, new() { Name = "Results, page 3" });
        await third.WaitForAsync();
        Assert.Equal(6, await third.Locator("tbody tr").CountAsync());
        Assert.True(await page.GetByRole(AriaRole.Button, new() { Name = "Next page" }).IsDisabledAsync(), "The last page has no continuation.");
        await page.GetByRole(AriaRole.Button, new() { Name = "Previous page" }).ClickAsync();
        await second.WaitForAsync();

        // The route keeps the query and its parameter, as GET /queries takes them.
        Assert.Contains("p.min=50", page.Url, StringComparison.Ordinal);

        // Export through the API's CSV and JSON rows: the query as written (its limit of 10), whatever page is shown.
        var download = await page.RunAndWaitForDownloadAsync(() => page.GetByRole(AriaRole.Button, new() { Name = "Export CSV" }).ClickAsync());
        var csv = (await File.ReadAllTextAsync(await download.PathAsync())).Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal("id,Customer,Total,OrderedAt", csv[0]);
        Assert.Equal(11, csv.Length);
        Assert.StartsWith("orders/5,", csv[1], StringComparison.Ordinal);
        download = await page.RunAndWaitForDownloadAsync(() => page.GetByRole(AriaRole.Button, new() { Name = "Export JSON" }).ClickAsync());
        using (var rows = JsonDocument.Parse(await File.ReadAllTextAsync(await download.PathAsync())))
        {
            Assert.Equal(10, rows.RootElement.GetArrayLength());
            Assert.Equal(140, rows.RootElement[9].GetProperty("Total").GetInt32());
        }

        // An error on the second line: shown under the editor at its line and column, with the cursor there.
        const string broken = "from Orders\nwhere Total >> 5";
        var expected = await ProblemAsync(session, broken);
        await editor.FillAsync(broken);
        await page.GetByRole(AriaRole.Button, new() { Name = "Run" }).ClickAsync();
        var error = page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "Invalid query (400)" });
        await error.WaitForAsync();
        var line = expected.GetProperty("line").GetInt32();
        var column = expected.GetProperty("column").GetInt32();
        Assert.Equal(2, line);
        await error.GetByText($"At line {line}, column {column}.").WaitForAsync();
        Assert.Equal("where Total >> 5\n" + new string(' ', column - 1) + "^", await error.Locator("pre.error-marker").TextContentAsync());
        Assert.Equal(expected.GetProperty("offset").GetInt32(), await editor.EvaluateAsync<int>("e => e.selectionStart"));
        Assert.True(await editor.EvaluateAsync<bool>("e => document.activeElement === e"), "The cursor is in the editor.");
        Assert.Equal("true", await editor.GetAttributeAsync("aria-invalid"));
        await session.AssertAccessibleAsync();

        // Fixed by the person and run with Ctrl+Enter: the error goes, the results come.
        await editor.FillAsync("from Orders\nwhere Total > 250");
        await editor.PressAsync("Control+Enter");
        await page.GetByRole(AriaRole.Table, new() { Name = "Results, page 1" }).WaitForAsync();
        Assert.Equal(0, await error.CountAsync());
        Assert.Contains("5 of 5 results", await page.Locator("p.summary").TextContentAsync() ?? string.Empty, StringComparison.Ordinal);

        // Explain shows the plan without running.
        await page.GetByRole(AriaRole.Button, new() { Name = "Explain" }).ClickAsync();
        await page.GetByRole(AriaRole.Heading, new() { Name = "Plan" }).WaitForAsync();

        // A time() query: the buckets as a chart and a table. The parameter is not needed any more.
        await page.GetByRole(AriaRole.Button, new() { Name = "Remove parameter min" }).ClickAsync();
        Assert.Equal(0, await page.GetByLabel("Name").CountAsync());
        await editor.FillAsync("from Orders group by time(OrderedAt, '1h') select count(), sum(Total)");
        await page.GetByRole(AriaRole.Button, new() { Name = "Run" }).ClickAsync();
        var buckets = page.GetByRole(AriaRole.Table, new() { Name = "Results, page 1" });
        await buckets.WaitForAsync();
        await page.Locator("figure.chart svg path").First.WaitForAsync();
        Assert.Equal(2, await page.Locator("figure.chart svg path").CountAsync());
        Assert.Equal(4, await buckets.Locator("tbody tr").CountAsync());
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("query");
    }

    [Fact]
    public async Task At_a_phones_width_results_and_errors_fit_and_a_shared_link_runs_its_query()
    {
        await using var session = await ConsoleSession.StartAsync(_browser, phone: true);
        for (var i = 1; i <= 5; i++)
        {
            await session.PutAsync($"orders/{i}", "Orders", $$"""{"Customer":"a customer with a rather long name {{i}}","Total":{{i}},"Notes":"{{new string('x', 80)}}"}""");
        }

        await session.LoginAsync("query?q=from%20Orders%20where%20Total%20%3E%3D%20%24min&p.min=2");
        var page = session.Page;
        var results = page.GetByRole(AriaRole.Table, new() { Name = "Results, page 1" });
        await results.WaitForAsync();
        Assert.Equal(4, await results.Locator("tbody tr").CountAsync());
        Assert.Equal("2", await page.GetByLabel("Value").InputValueAsync());
        await AssertFitsAsync(page);
        await session.AssertAccessibleAsync();

        await page.GetByRole(AriaRole.Textbox, new() { Name = "Query", Exact = true }).FillAsync("from Orders where Total in (1, 2");
        await page.GetByRole(AriaRole.Button, new() { Name = "Run" }).ClickAsync();
        await page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "Invalid query (400)" }).WaitForAsync();
        await AssertFitsAsync(page);
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("query-phone");
    }

    private static async Task AssertFitsAsync(IPage page)
    {
        var overflow = await page.EvaluateAsync<int>("() => document.documentElement.scrollWidth - document.documentElement.clientWidth");
        Assert.True(overflow <= 0, $"The page is {overflow} px wider than a phone's screen.");
    }

    private static async Task<JsonElement> ProblemAsync(ConsoleSession session, string query)
    {
        using var content = new StringContent(JsonSerializer.Serialize(new { query }), Encoding.UTF8, "application/json");
        using var response = await session.Api.PostAsync(new Uri("/queries", UriKind.Relative), content);
        Assert.Equal(System.Net.HttpStatusCode.BadRequest, response.StatusCode);
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.Clone();
    }
}
