using System.Globalization;

namespace Ingest.Server.Queries;

/// <summary>
/// <c>waitForNonStale</c> values: a number with a unit (<c>500ms</c>, <c>5s</c>, <c>2m</c>), a .NET time span
/// (<c>00:00:05</c>), <c>true</c> for <see cref="Default"/> or <c>false</c> for no wait; at most <see cref="Max"/>.
/// </summary>
internal static class WaitDuration
{
    public static readonly TimeSpan Default = TimeSpan.FromSeconds(15);
    public static readonly TimeSpan Max = TimeSpan.FromMinutes(10);

    public const string Expected = "expected a duration such as 500ms, 5s or 2m (at most 10m), true (15s) or false";

    public const string ExpectedTimeout = "expected a duration above zero such as 500ms or 2s (more than the server's Ingest:Queries:Timeout is cut to it)";

    /// <summary>A query's <c>timeout</c>: a positive duration, no <c>true</c>/<c>false</c>; null when empty.</summary>
    public static bool TryParseTimeout(string? text, out TimeSpan? timeout)
    {
        timeout = null;
        text = text?.Trim();
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        if (!TryParseSpan(text, out var span) || span <= TimeSpan.Zero || span > Max)
        {
            return false;
        }

        timeout = span;
        return true;
    }

    /// <summary>Null <paramref name="wait"/> for <c>false</c> or an empty value.</summary>
    public static bool TryParse(string? text, out TimeSpan? wait)
    {
        wait = null;
        text = text?.Trim();
        if (string.IsNullOrEmpty(text) || text.Equals("false", StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        if (text.Equals("true", StringComparison.OrdinalIgnoreCase))
        {
            wait = Default;
            return true;
        }

        if (!TryParseSpan(text, out var span) || span < TimeSpan.Zero || span > Max)
        {
            return false;
        }

        wait = span;
        return true;
    }

    private static bool TryParseSpan(string text, out TimeSpan span)
    {
        if (text.Contains(':', StringComparison.Ordinal))
        {
            return TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out span);
        }

        span = default;
        var digits = 0;
        while (digits < text.Length && (char.IsAsciiDigit(text[digits]) || text[digits] == '.'))
        {
            digits++;
        }

        if (digits == 0 || !double.TryParse(text.AsSpan(0, digits), NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var amount))
        {
            return false;
        }

        double? milliseconds = text[digits..].ToLowerInvariant() switch
        {
            "ms" => amount,
            "s" or "" => amount * 1000,
            "m" => amount * 60_000,
            "h" => amount * 3_600_000,
            _ => null,
        };
        if (milliseconds is not { } ms || ms > Max.TotalMilliseconds)
        {
            return false;
        }

        span = TimeSpan.FromMilliseconds(ms);
        return true;
    }
}
