using System.Security.Cryptography;
using System.Text;
using Ingest.Indexing.Definitions;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// Names of automatic indexes: <c>Auto/&lt;Collection&gt;/By&lt;Field1&gt;And&lt;Field2&gt;</c>, fields in ordinal order of their
/// paths, each path cleaned to ASCII letters and digits (<c>Customer.Name</c> becomes <c>CustomerName</c>) because index
/// names become directory names. Every index whose name starts with <c>Auto/</c> is automatic.
/// </summary>
public static class AutoIndexNames
{
    public const string Prefix = "Auto/";

    public static bool IsAutomatic(string indexName)
    {
        ArgumentNullException.ThrowIfNull(indexName);
        return indexName.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>The name for an index of <paramref name="collection"/> over <paramref name="paths"/>.</summary>
    public static string For(string collection, IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(collection);
        ArgumentNullException.ThrowIfNull(paths);
        var sorted = paths.Order(StringComparer.Ordinal).ToList();
        var name = new StringBuilder(Prefix).Append(Clean(collection, "Collection")).Append("/By");
        for (var i = 0; i < sorted.Count; i++)
        {
            name.Append(i == 0 ? string.Empty : "And").Append(Clean(sorted[i], "Field"));
        }

        return name.Length <= IndexDefinitionValidator.MaxIndexNameLength ? name.ToString() : WithHash(name.ToString(), collection, sorted);
    }

    /// <summary>
    /// A name that cannot collide with <see cref="For"/>'s for another set of fields: the plain name cut short if need be,
    /// then a hash of the collection and paths. Used when two field sets clean to the same name (<c>a.b</c>, <c>ab</c>).
    /// </summary>
    public static string Distinct(string collection, IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        var sorted = paths.Order(StringComparer.Ordinal).ToList();
        return WithHash(For(collection, sorted), collection, sorted);
    }

    private static string WithHash(string name, string collection, IReadOnlyList<string> sortedPaths)
    {
        var hash = SHA256.HashData(Encoding.UTF8.GetBytes(collection + "\n" + string.Join("\n", sortedPaths)));
        var suffix = "-" + Convert.ToHexStringLower(hash.AsSpan(0, 8));
        var keep = Math.Min(name.Length, IndexDefinitionValidator.MaxIndexNameLength - suffix.Length);
        var cut = name[..keep];
        if (name.Length > keep && name.Length > 0 && cut.EndsWith('/'))
        {
            cut = cut[..^1];
        }

        return cut + suffix;
    }

    private static string Clean(string text, string fallback)
    {
        var cleaned = new StringBuilder(text.Length);
        var upperNext = false;
        foreach (var c in text)
        {
            if (char.IsAsciiLetterOrDigit(c))
            {
                cleaned.Append(upperNext ? char.ToUpperInvariant(c) : c);
                upperNext = false;
            }
            else
            {
                // Segment boundaries keep the next segment readable: Customer.name -> CustomerName.
                upperNext = cleaned.Length > 0;
            }
        }

        return cleaned.Length == 0 ? fallback : cleaned.ToString();
    }
}
