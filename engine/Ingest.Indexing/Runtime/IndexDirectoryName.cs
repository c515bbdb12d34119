using System.Globalization;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// Directory names of index builds: <c>&lt;escaped name&gt;.&lt;generation&gt;</c>. Index names allow ASCII letters,
/// digits, '/', '-', '_' and '.'; the only one a file name cannot hold is '/', which becomes '~' (never in a name), so
/// the escape is reversible. The generation follows the last '.', so a name with dots parses back unchanged.
/// </summary>
internal static class IndexDirectoryName
{
    public static string Of(string indexName, long generation) =>
        indexName.Replace('/', '~') + "." + generation.ToString(CultureInfo.InvariantCulture);

    /// <summary>Parses a directory name; false for anything that is not an index build's directory.</summary>
    public static bool TryParse(string directoryName, out string indexName, out long generation)
    {
        indexName = "";
        generation = 0;
        var dot = directoryName.LastIndexOf('.');
        if (dot <= 0
            || !long.TryParse(directoryName.AsSpan(dot + 1), NumberStyles.None, CultureInfo.InvariantCulture, out generation)
            || generation <= 0)
        {
            return false;
        }

        indexName = directoryName[..dot].Replace('~', '/');
        return true;
    }
}
