using System.Net;
using System.Text;
using System.Text.RegularExpressions;
using Ingest.Console.Tests.Browser;
using Microsoft.Playwright;
using static Microsoft.Playwright.Assertions;

namespace Ingest.Console.Tests.Indexes;

/// <summary>The indexes page: a definition refused beside its field, then defined, listed with its counters, reset and deleted.</summary>
[Collection(ConsoleCollection.Name)]
public sealed class IndexesPageTests
{
    private const string Index = "Orders/ByCustomer";
    private readonly ChromiumBrowser _browser;

    public IndexesPageTests(ChromiumBrowser browser)
    {
        _browser = browser;
        SetDefaultExpectTimeout(15_000);
    }

    [Fact]
    public async Task A_refused_definition_is_shown_beside_its_field_and_the_fixed_one_is_listed_with_its_counters_reset_and_deleted_after_confirming()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        await PutAsync(session, "orders/1", """{"customer":"Ada","total":42.5}""");
        await PutAsync(session, "orders/2", """{"customer":"Grace","total":"seven"}""");
        await session.LoginAsync("indexes");
        var page = session.Page;

        await page.GetByLabel("Name", new() { Exact = true }).FillAsync(Index);
        await page.GetByLabel("Collections").FillAsync("Orders");
        await page.GetByLabel("Field 1 name").FillAsync("Customer");
        await page.GetByLabel("Field 1 path").FillAsync("customer");
        await page.GetByRole(AriaRole.Button, new() { Name = "Add field" }).ClickAsync();
        await page.GetByLabel("Field 2 name").FillAsync("Total");
        await page.GetByLabel("Field 2 path").FillAsync("total[");
        await page.GetByLabel("Field 2 type").SelectOptionAsync("number");
        await page.GetByRole(AriaRole.Button, new() { Name = "Define index" }).ClickAsync();

        // The server's problem for fields[1].path, beside that input and tied to it; the other inputs are untouched.
        var path = page.GetByLabel("Field 2 path");
        await Expect(path).ToHaveAttributeAsync("aria-invalid", "true");
        await Expect(path).ToHaveAccessibleDescriptionAsync(new Regex("field 'Total' has a malformed path 'total\\['"));
        await Expect(path).ToBeFocusedAsync();
        Assert.Null(await page.GetByLabel("Field 1 path").GetAttributeAsync("aria-invalid"));
        await Expect(page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "Invalid index definition" })).ToContainTextAsync("nothing was stored");
        using (var missing = await session.Api.GetAsync(new Uri("/indexes/" + Index, UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        }

        await session.AssertAccessibleAsync();

        await path.FillAsync("total");
        await page.GetByRole(AriaRole.Button, new() { Name = "Define index" }).ClickAsync();
        await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = $"Index \"{Index}\" created" })).ToBeVisibleAsync();
        await Expect(page.GetByRole(AriaRole.Heading, new() { Name = $"Index {Index}" })).ToBeVisibleAsync();

        // Listed, and its counters: the second order's total is not a number.
        await Expect(page.GetByRole(AriaRole.Table, new() { Name = "Indexes" }).GetByRole(AriaRole.Link, new() { Name = Index })).ToBeVisibleAsync();
        var total = page.GetByRole(AriaRole.Table, new() { Name = $"Fields of {Index}" }).GetByRole(AriaRole.Row).Filter(new() { HasText = "Total" });
        await Expect(total.GetByRole(AriaRole.Cell).Nth(4)).ToHaveTextAsync("1");
        await Expect(total.GetByRole(AriaRole.Cell).Nth(5)).ToHaveTextAsync("0");
        await Expect(page.GetByRole(AriaRole.Table, new() { Name = "Indexes" }).GetByRole(AriaRole.Row).Filter(new() { HasText = Index })).ToContainTextAsync("up to date");
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("indexes");
        await session.AssertFitsPhoneAsync("indexes-phone");

        // Reset asks first; cancelling does nothing, confirming rebuilds.
        await page.GetByRole(AriaRole.Button, new() { Name = "Reset index" }).ClickAsync();
        var dialog = page.GetByRole(AriaRole.Dialog);
        await Expect(dialog).ToContainTextAsync("rebuilt from the first document");
        await dialog.GetByRole(AriaRole.Button, new() { Name = "Cancel" }).ClickAsync();
        await Expect(dialog).ToHaveCountAsync(0);
        await page.GetByRole(AriaRole.Button, new() { Name = "Reset index" }).ClickAsync();
        await dialog.GetByRole(AriaRole.Button, new() { Name = "Reset" }).ClickAsync();
        await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = "is being rebuilt" })).ToBeVisibleAsync();

        await page.GetByRole(AriaRole.Button, new() { Name = "Delete index" }).ClickAsync();
        await dialog.GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = $"Index \"{Index}\" was deleted" })).ToBeVisibleAsync();
        await Expect(page.GetByRole(AriaRole.Link, new() { Name = Index })).ToHaveCountAsync(0);
        using var deleted = await session.Api.GetAsync(new Uri("/indexes/" + Index, UriKind.Relative));
        Assert.Equal(HttpStatusCode.NotFound, deleted.StatusCode);
    }

    private static async Task PutAsync(ConsoleSession session, string id, string json)
    {
        using var response = await session.Api.PutAsync(new Uri($"/docs/{id}?collection=Orders", UriKind.Relative), new StringContent(json, Encoding.UTF8, "application/json"));
        response.EnsureSuccessStatusCode();
    }
}
