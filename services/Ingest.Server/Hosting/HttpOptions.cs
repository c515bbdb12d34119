namespace Ingest.Server.Hosting;

/// <summary>
/// How the HTTP server takes request bodies, bound from <c>Ingest:Http</c>. Kestrel's own
/// <c>MinRequestBodyDataRate</c> is an object configuration cannot bind, so its two parts are settings here.
/// </summary>
public sealed class HttpOptions
{
    public const string SectionName = "Ingest:Http";

    /// <summary>Where the API listens when neither ASPNETCORE_URLS/URLS, --urls, a Urls setting, HTTP_PORTS nor Kestrel:Endpoints says.</summary>
    public const string DefaultUrls = "http://127.0.0.1:8080";

    /// <summary>A request body slower than this (after the grace period) is abandoned with a 408; 0 turns the check off.</summary>
    public double MinRequestBodyBytesPerSecond { get; set; } = 240;

    /// <summary>How long a request body may start slowly before the minimum rate applies; Kestrel needs more than one second.</summary>
    public TimeSpan RequestBodyGracePeriod { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (MinRequestBodyBytesPerSecond < 0 || double.IsNaN(MinRequestBodyBytesPerSecond) || double.IsInfinity(MinRequestBodyBytesPerSecond))
        {
            errors.Add($"{SectionName}:{nameof(MinRequestBodyBytesPerSecond)} must be a number >= 0 (was {MinRequestBodyBytesPerSecond}).");
        }

        if (RequestBodyGracePeriod <= TimeSpan.FromSeconds(1))
        {
            errors.Add($"{SectionName}:{nameof(RequestBodyGracePeriod)} must be longer than one second (was {RequestBodyGracePeriod}).");
        }

        return errors;
    }
}
