using System.Net;
using Ingest.Console.Tests.Browser;
using Microsoft.Playwright;

namespace Ingest.Console.Tests.Shell;

[Collection(ConsoleCollection.Name)]
public sealed class LoginTests
{
    private readonly ChromiumBrowser _browser;

    public LoginTests(ChromiumBrowser browser) => _browser = browser;

    [Fact]
    public async Task The_key_is_asked_for_checked_kept_for_the_tab_and_never_put_in_the_url()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        var page = session.Page;
        await page.GotoAsync(session.BaseAddress.ToString());

        var key = page.GetByLabel("API key");
        await key.WaitForAsync();
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("login");

        await key.FillAsync("not-the-key-at-all-000");
        await page.GetByRole(AriaRole.Button, new() { Name = "Log in" }).ClickAsync();
        await page.GetByText("That key was refused").WaitForAsync();

        await key.FillAsync(ConsoleSession.ApiKey);
        await page.GetByRole(AriaRole.Button, new() { Name = "Log in" }).ClickAsync();
        await page.GetByRole(AriaRole.Heading, new() { Name = "Overview" }).WaitForAsync();
        Assert.DoesNotContain(ConsoleSession.ApiKey, page.Url, StringComparison.Ordinal);
        Assert.Equal("page", await page.GetByRole(AriaRole.Link, new() { Name = "Overview" }).GetAttributeAsync("aria-current"));

        // A reload keeps the session; logging out forgets the key.
        await page.ReloadAsync();
        await page.GetByRole(AriaRole.Heading, new() { Name = "Overview" }).WaitForAsync();
        await page.GetByRole(AriaRole.Button, new() { Name = "Log out" }).ClickAsync();
        await page.GetByLabel("API key").WaitForAsync();
        Assert.Null(await page.EvaluateAsync<string?>("() => sessionStorage.getItem('ingest.console.apiKey')"));
    }

    [Fact]
    public async Task The_console_files_need_no_key_but_every_api_call_does()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        using var anonymous = new HttpClient { BaseAddress = session.BaseAddress };

        foreach (var path in new[] { "/", "/console", "/console/js/app.js", "/console/console.css" })
        {
            using var response = await anonymous.GetAsync(new Uri(path, UriKind.Relative));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Contains("default-src 'self'", response.Headers.GetValues("Content-Security-Policy").Single(), StringComparison.Ordinal);
        }

        using var stats = await anonymous.GetAsync(new Uri("/stats", UriKind.Relative));
        Assert.Equal(HttpStatusCode.Unauthorized, stats.StatusCode);
        using var missing = await anonymous.GetAsync(new Uri("/console/no-such-file.js", UriKind.Relative));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task A_server_that_stops_answering_is_shown_as_such_with_the_last_figures_kept()
    {
        await using var session = await ConsoleSession.StartAsync(_browser);
        using (var put = await session.Api.PutAsync(new Uri("/docs/orders/1?collection=Orders", UriKind.Relative), new StringContent("{\"Total\":1}", System.Text.Encoding.UTF8, "application/json")))
        {
            put.EnsureSuccessStatusCode();
        }

        await session.LoginAsync();
        var page = session.Page;
        await page.GetByRole(AriaRole.Cell, new() { Name = "Orders" }).WaitForAsync();

        await session.StopServerAsync();
        await page.GetByText("Server not answering").WaitForAsync();
        await page.GetByRole(AriaRole.Alert).Filter(new() { HasText = "has not answered since" }).WaitForAsync();
        Assert.True(await page.GetByRole(AriaRole.Cell, new() { Name = "Orders" }).IsVisibleAsync(), "The last figures stay on the page.");
    }

    [Fact]
    public async Task At_a_phones_width_the_page_fits_without_sideways_scrolling()
    {
        await using var session = await ConsoleSession.StartAsync(_browser, phone: true);
        await session.LoginAsync();
        var overflow = await session.Page.EvaluateAsync<int>("() => document.documentElement.scrollWidth - document.documentElement.clientWidth");
        Assert.True(overflow <= 0, $"The page is {overflow} px wider than a phone's screen.");
        await session.AssertAccessibleAsync();
    }
}
