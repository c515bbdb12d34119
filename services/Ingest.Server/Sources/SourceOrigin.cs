namespace Ingest.Server.Sources;

/// <summary>
/// The key under which a source stores positions and dead letters: "&lt;source name&gt;/&lt;topic or
/// queue&gt;". Source names cannot contain '/', so the name is everything before the first one.
/// </summary>
public static class SourceOrigin
{
    public static string Of(string sourceName, string destination) => $"{sourceName}/{destination}";

    /// <summary>The source name of an origin; the whole string if it has no '/'.</summary>
    public static string SourceName(string origin)
    {
        ArgumentNullException.ThrowIfNull(origin);
        var slash = origin.IndexOf('/', StringComparison.Ordinal);
        return slash < 0 ? origin : origin[..slash];
    }
}
