using Deque.AxeCore.Commons;
using Deque.AxeCore.Playwright;
using Ingest.Server.Tests.Hosting;
using Microsoft.Playwright;

namespace Ingest.Console.Tests.Browser;

/// <summary>
/// A real server (in this process, on a free port, with its own data directory and an API key) and a browser
/// page on its console. Tests act on the page as a person would and read the server's state over HTTP.
/// </summary>
internal sealed class ConsoleSession : IAsyncDisposable
{
    public const string ApiKey = "console-test-key-0123456789";

    /// <summary>When set to a directory, <see cref="ScreenshotAsync"/> writes there (docs/console when refreshing the README's pictures).</summary>
    public const string ScreenshotVariable = "INGEST_CONSOLE_SCREENSHOTS";

    private readonly TestDirectory _directory;
    private readonly IBrowserContext _context;
    private bool _serverStopped;

    private ConsoleSession(TestDirectory directory, RunningServer server, IBrowserContext context, IPage page)
    {
        _directory = directory;
        Server = server;
        _context = context;
        Page = page;
        Api = new HttpClient { BaseAddress = server.Addresses[0] };
        Api.DefaultRequestHeaders.Add("X-Api-Key", ApiKey);
    }

    public RunningServer Server { get; }

    public IPage Page { get; }

    /// <summary>An HTTP client with the key, for setting up and checking state behind the page's back.</summary>
    public HttpClient Api { get; }

    public Uri BaseAddress => Server.Addresses[0];

    /// <summary>Starts a server (no sources unless <paramref name="serverArguments"/> configure some) and opens a page.</summary>
    public static async Task<ConsoleSession> StartAsync(ChromiumBrowser browser, bool phone = false, params string[] serverArguments)
    {
        ArgumentNullException.ThrowIfNull(browser);
        var directory = new TestDirectory();
        RunningServer? server = null;
        try
        {
            server = await RunningServer.StartAsync(directory.Path, [$"--Ingest:ApiKey={ApiKey}", .. serverArguments]);
            var context = await browser.NewContextAsync(phone);
            var page = await context.NewPageAsync();
            page.SetDefaultTimeout(15_000);
            return new ConsoleSession(directory, server, context, page);
        }
        catch
        {
            if (server is not null)
            {
                await server.DisposeAsync();
            }

            directory.Dispose();
            throw;
        }
    }

    /// <summary>Opens the console at <paramref name="route"/> (e.g. "query") and logs in with the key through the form.</summary>
    public async Task LoginAsync(string route = "overview")
    {
        await Page.GotoAsync(new Uri(BaseAddress, $"/console#/{route}").ToString());
        await Page.GetByLabel("API key").FillAsync(ApiKey);
        await Page.GetByRole(AriaRole.Button, new() { Name = "Log in" }).ClickAsync();
        await Page.Locator("#page-title").WaitForAsync();
    }

    /// <summary>Opens another page of the console, as clicking its link would.</summary>
    public async Task OpenAsync(string route)
    {
        await Page.GotoAsync(new Uri(BaseAddress, $"/console#/{route}").ToString());
        await Page.Locator("#page-title").WaitForAsync();
    }

    /// <summary>Runs axe on the page as it is and fails on any serious or critical violation, naming each.</summary>
    public async Task AssertAccessibleAsync()
    {
        var result = await Page.RunAxe();
        var serious = result.Violations
            .Where(static violation => violation.Impact is "serious" or "critical")
            .Select(static violation => $"{violation.Id} ({violation.Impact}): {violation.Help} at {string.Join("; ", violation.Nodes.Select(static node => node.Target?.ToString()))}")
            .ToList();
        Assert.True(serious.Count == 0, "Accessibility violations:\n" + string.Join("\n", serious));
    }

    /// <summary>A full-page screenshot named <paramref name="name"/>.png, when <see cref="ScreenshotVariable"/> says where.</summary>
    public async Task ScreenshotAsync(string name)
    {
        var directory = Environment.GetEnvironmentVariable(ScreenshotVariable);
        if (string.IsNullOrEmpty(directory))
        {
            return;
        }

        Directory.CreateDirectory(directory);
        await Page.ScreenshotAsync(new PageScreenshotOptions { Path = Path.Combine(directory, name + ".png"), FullPage = true });
    }

    /// <summary>Stops the server while the page stays open (a server that stops answering).</summary>
    public async Task StopServerAsync()
    {
        _serverStopped = true;
        await Server.DisposeAsync();
    }

    public async ValueTask DisposeAsync()
    {
        Api.Dispose();
        await _context.DisposeAsync();
        if (!_serverStopped)
        {
            await Server.DisposeAsync();
        }

        _directory.Dispose();
    }
}
