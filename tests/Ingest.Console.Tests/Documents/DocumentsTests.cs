using Ingest.Console.Tests.Browser;
using Microsoft.Playwright;

namespace Ingest.Console.Tests.Documents;

[Collection(ConsoleCollection.Name)]
public sealed class DocumentsTests
{
    private readonly ChromiumBrowser _browser;

    public DocumentsTests(ChromiumBrowser browser) => _browser = browser;

    [Fact]
    public async Task A_collection_is_browsed_page_by_page_and_a_document_is_opened_edited_saved_refused_on_conflict_and_deleted()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        for (var i = 1; i <= 30; i++)
        {
            await session.PutAsync($"orders/{i}", "Orders", $$"""{"Customer":"c{{i % 4}}","Total":{{i * 10}},"Lines":[{"Sku":"s{{i}}","Qty":{{i % 3 + 1}}}]}""");
        }

        await session.PutAsync("customers/1", "Customers", """{"Name":"Ada"}""");
        await session.LoginAsync("documents");
        var page = session.Page;

        // Choose the collection, as a person would; the route keeps it.
        await page.GetByLabel("Collection").SelectOptionAsync("Orders");
        var list = page.GetByRole(AriaRole.Table, new() { Name = "Orders, page 1" });
        await list.WaitForAsync();
        Assert.Contains("collection=Orders", page.Url, StringComparison.Ordinal);
        Assert.Equal(25, await list.Locator("tbody tr").CountAsync());

        await page.GetByRole(AriaRole.Button, new() { Name = "Next page" }).ClickAsync();
        var second = page.GetByRole(AriaRole.Table, new() { Name = "Orders, page 2" });
        await second.WaitForAsync();
        Assert.Equal(5, await second.Locator("tbody tr").CountAsync());
        Assert.True(await page.GetByRole(AriaRole.Button, new() { Name = "Next page" }).IsDisabledAsync(), "The last page has no next one.");
        await second.GetByRole(AriaRole.Link, new() { Name = "orders/30", Exact = true }).WaitForAsync();
        await page.GetByRole(AriaRole.Button, new() { Name = "Previous page" }).ClickAsync();
        await list.WaitForAsync();

        // Open one: pretty JSON, etag, last modified, collection.
        await list.GetByRole(AriaRole.Link, new() { Name = "orders/3", Exact = true }).ClickAsync();
        var heading = page.GetByRole(AriaRole.Heading, new() { Name = "orders/3" });
        await heading.WaitForAsync();
        var stored = (await session.GetAsync("orders/3"))!.Value;
        Assert.Equal(stored.Etag, await page.Locator("dd.etag").TextContentAsync());
        Assert.Contains("\"Total\": 30", await page.Locator("pre.json").TextContentAsync() ?? string.Empty, StringComparison.Ordinal);
        Assert.Contains("id=orders%2F3", page.Url, StringComparison.Ordinal);
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("documents");

        // Edit and save: the page shows the new etag, which is the server's.
        await page.GetByRole(AriaRole.Button, new() { Name = "Edit" }).ClickAsync();
        await page.GetByLabel("JSON").FillAsync("""{"Customer":"c3","Total":999}""");
        await page.GetByRole(AriaRole.Button, new() { Name = "Save" }).ClickAsync();
        var saved = page.Locator("p.saved");
        await saved.WaitForAsync();
        var afterSave = (await session.GetAsync("orders/3"))!.Value;
        Assert.Equal($"Saved: the new etag is {afterSave.Etag}.", await saved.TextContentAsync());
        Assert.Equal(999, afterSave.Body.GetProperty("Total").GetInt32());
        Assert.Equal(afterSave.Etag, await page.Locator("dd.etag").TextContentAsync());
        await session.AssertAccessibleAsync();

        // A change made meanwhile: the save is refused with the server's detail, nothing is overwritten, and the
        // current version can be reloaded.
        await page.GetByRole(AriaRole.Button, new() { Name = "Edit" }).ClickAsync();
        await session.PutAsync("orders/3", "Orders", """{"Customer":"someone else","Total":1}""");
        var meanwhile = (await session.GetAsync("orders/3"))!.Value;
        await page.GetByLabel("JSON").FillAsync("""{"Customer":"c3","Total":1000}""");
        await page.GetByRole(AriaRole.Button, new() { Name = "Save" }).ClickAsync();
        var conflict = page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "Precondition failed (412)" });
        await conflict.WaitForAsync();
        Assert.Contains($"is at etag \"{meanwhile.Etag}\"", await conflict.TextContentAsync() ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal(1, (await session.GetAsync("orders/3"))!.Value.Body.GetProperty("Total").GetInt32());
        await session.AssertAccessibleAsync();
        await page.GetByRole(AriaRole.Button, new() { Name = "Reload the current version" }).ClickAsync();
        await page.GetByText($"etag {meanwhile.Etag}").WaitForAsync();
        Assert.Contains("someone else", await page.GetByLabel("JSON").InputValueAsync(), StringComparison.Ordinal);
        await page.GetByRole(AriaRole.Button, new() { Name = "Cancel" }).ClickAsync();

        // Delete asks first; cancelling keeps it, confirming removes it and returns to the list.
        await page.GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Cancel" }).ClickAsync();
        Assert.NotNull(await session.GetAsync("orders/3"));
        await page.GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await page.GetByText("Deleted orders/3.").WaitForAsync();
        Assert.Null(await session.GetAsync("orders/3"));
        Assert.Equal(0, await page.GetByRole(AriaRole.Link, new() { Name = "orders/3", Exact = true }).CountAsync());
        Assert.Equal(25, await page.GetByRole(AriaRole.Table, new() { Name = "Orders, page 1" }).Locator("tbody tr").CountAsync());
    }

    [Fact]
    public async Task A_shared_link_opens_the_document_and_one_that_is_gone_says_so()
    {
        await using var session = await ConsoleSession.StartAsync(_browser, phone: true);
        await session.PutAsync("orders/1", "Orders", """{"Total":5}""");
        await session.LoginAsync("documents?collection=Orders&id=orders%2F1");
        await session.Page.GetByRole(AriaRole.Heading, new() { Name = "orders/1" }).WaitForAsync();
        var overflow = await session.Page.EvaluateAsync<int>("() => document.documentElement.scrollWidth - document.documentElement.clientWidth");
        Assert.True(overflow <= 0, $"The page is {overflow} px wider than a phone's screen.");
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("documents-phone");

        await session.OpenAsync("documents?collection=Orders&id=orders%2F404");
        await session.Page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "There is no document with id 'orders/404'" }).WaitForAsync();
    }
}
