using Microsoft.Playwright;

namespace Ingest.Console.Tests.Browser;

/// <summary>
/// One headless Chromium for the whole run, driven by Playwright. Playwright cannot download its own browsers
/// here, so it drives the system's: <see cref="ExecutableVariable"/> when set, else Debian's <c>chromium</c>
/// package (<c>.ci/run</c> installs it). Without one the tests fail saying how to provide it, never skip.
/// </summary>
public sealed class ChromiumBrowser : IAsyncLifetime
{
    public const string ExecutableVariable = "INGEST_TEST_CHROMIUM";

    private static readonly string[] Candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

    private IPlaywright? _playwright;
    private IBrowser? _browser;

    public IBrowser Browser => _browser ?? throw new InvalidOperationException("The browser is not started yet.");

    public async Task InitializeAsync()
    {
        var executable = FindExecutable();
        _playwright = await Playwright.CreateAsync();
        _browser = await _playwright.Chromium.LaunchAsync(new BrowserTypeLaunchOptions
        {
            ExecutablePath = executable,
            Headless = true,
            // CI runs as root in a container, where Chromium's sandbox cannot start.
            Args = ["--no-sandbox", "--disable-dev-shm-usage"],
        });
    }

    /// <summary>A fresh context (its own session storage, so its own login) at a desktop or a phone's width.</summary>
    public Task<IBrowserContext> NewContextAsync(bool phone = false) =>
        Browser.NewContextAsync(new BrowserNewContextOptions
        {
            ViewportSize = phone ? new ViewportSize { Width = 390, Height = 844 } : new ViewportSize { Width = 1280, Height = 800 },
            Locale = "en-US",
            TimezoneId = "UTC",
        });

    public async Task DisposeAsync()
    {
        if (_browser is not null)
        {
            await _browser.DisposeAsync();
        }

        _playwright?.Dispose();
    }

    private static string FindExecutable()
    {
        var configured = Environment.GetEnvironmentVariable(ExecutableVariable);
        if (!string.IsNullOrEmpty(configured))
        {
            return File.Exists(configured)
                ? configured
                : throw new InvalidOperationException($"{ExecutableVariable} names '{configured}', which does not exist.");
        }

        foreach (var candidate in Candidates)
        {
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        throw new InvalidOperationException(
            $"No Chromium to drive: install Debian's package (apt-get install -y chromium) or set {ExecutableVariable} to a Chromium or Chrome executable. " +
            $"Looked at {string.Join(", ", Candidates)}.");
    }
}
