using System.Globalization;
using System.Text;
using Ingest.Storage;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// Where an index's bytes go, per document: its trees grouped as the index layout names them (entries, terms, docs,
/// posting lists, null lists, numeric columns, the rest), then what its files hold beside live pages (free pages, journals).
/// </summary>
internal static class IndexPageBreakdown
{
    public static string Describe(StorageEnvironment env, long documents)
    {
        var groups = new SortedDictionary<string, long>(StringComparer.Ordinal);
        foreach (var (tree, pages) in env.CountPagesByTree())
        {
            var slash = tree.IndexOf('/', StringComparison.Ordinal);
            var group = tree switch
            {
                "entries" or "terms" or "docs" => tree,
                _ when slash > 0 => tree[..slash] + "/*",
                _ => "other",
            };
            groups[group] = groups.GetValueOrDefault(group) + pages;
        }

        var space = env.GetSpace();
        var text = new StringBuilder("B/doc by tree:");
        foreach (var (group, pages) in groups.OrderByDescending(g => g.Value))
        {
            text.Append(CultureInfo.InvariantCulture, $" {group} {pages * 8192.0 / documents:N0}");
        }

        text.Append(CultureInfo.InvariantCulture, $"; files: free pages {space.FreePageBytes / (double)documents:N0}, journals {space.JournalBytes / (double)documents:N0}");
        return text.ToString();
    }
}
