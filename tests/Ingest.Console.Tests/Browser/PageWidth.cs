using Microsoft.Playwright;

namespace Ingest.Console.Tests.Browser;

/// <summary>Narrows a session's page to a phone's width (390 px) as it is, and checks it still fits and stays accessible.</summary>
internal static class PageWidth
{
    public const int Phone = 390;

    public static async Task AssertFitsPhoneAsync(this ConsoleSession session, string? screenshot = null)
    {
        ArgumentNullException.ThrowIfNull(session);
        await session.Page.SetViewportSizeAsync(Phone, 844);
        var overflow = await session.Page.EvaluateAsync<int>("() => document.documentElement.scrollWidth - document.documentElement.clientWidth");
        Assert.True(overflow <= 0, $"The page is {overflow} px wider than a phone's screen.");
        await session.AssertAccessibleAsync();
        if (screenshot is not null)
        {
            await session.ScreenshotAsync(screenshot);
        }

        await session.Page.SetViewportSizeAsync(1280, 800);
    }
}
