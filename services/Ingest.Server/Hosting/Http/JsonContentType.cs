using Microsoft.Net.Http.Headers;

namespace Ingest.Server.Hosting.Http;

/// <summary>Whether a request body's declared type is JSON (<c>application/json</c> or a <c>+json</c> type).</summary>
internal static class JsonContentType
{
    public static bool IsJson(string? contentType)
    {
        // No content type is taken as JSON (the body is validated anyway); a different one is a client mistake.
        if (string.IsNullOrEmpty(contentType))
        {
            return true;
        }

        if (!MediaTypeHeaderValue.TryParse(contentType, out var media))
        {
            return false;
        }

        return media.MediaType.Equals("application/json", StringComparison.OrdinalIgnoreCase)
            || media.Suffix.Equals("json", StringComparison.OrdinalIgnoreCase);
    }
}
