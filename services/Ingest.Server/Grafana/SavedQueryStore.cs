using System.Text.RegularExpressions;
using Ingest.Server.Etl;
using Ingest.Server.Hosting;

namespace Ingest.Server.Grafana;

/// <summary>
/// The saved queries, kept in <c>grafana/saved-queries.json</c> in the data directory and replaced atomically on every
/// change (as the ETL task definitions are), so a change acknowledged over HTTP survives a crash or restart.
/// </summary>
public sealed partial class SavedQueryStore
{
    public const string FileName = "saved-queries.json";

    private readonly string _path;
    private readonly Lock _lock = new();
    private Dictionary<string, SavedQuery>? _queries;

    public SavedQueryStore(DataDirectory data)
    {
        ArgumentNullException.ThrowIfNull(data);
        _path = Path.Combine(data.FullPath, "grafana", FileName);
    }

    /// <summary>Names: letters, digits, <c>-</c>, <c>_</c> and <c>.</c>, 1 to 100 of them (they appear in URLs and in dashboards).</summary>
    public static bool IsValidName(string name) => ValidName().IsMatch(name);

    public IReadOnlyList<SavedQuery> List()
    {
        lock (_lock)
        {
            return [.. Loaded().Values.OrderBy(static q => q.Name, StringComparer.Ordinal)];
        }
    }

    public SavedQuery? Get(string name)
    {
        lock (_lock)
        {
            return Loaded().GetValueOrDefault(name);
        }
    }

    /// <summary>Stores <paramref name="query"/>; true when it replaced one of the same name.</summary>
    public bool Put(SavedQuery query)
    {
        ArgumentNullException.ThrowIfNull(query);
        lock (_lock)
        {
            var updated = new Dictionary<string, SavedQuery>(Loaded(), StringComparer.Ordinal);
            var replaced = updated.ContainsKey(query.Name);
            updated[query.Name] = query;
            Save(updated);
            return replaced;
        }
    }

    public bool Delete(string name)
    {
        lock (_lock)
        {
            var updated = new Dictionary<string, SavedQuery>(Loaded(), StringComparer.Ordinal);
            if (!updated.Remove(name))
            {
                return false;
            }

            Save(updated);
            return true;
        }
    }

    private Dictionary<string, SavedQuery> Loaded()
    {
        if (_queries is null)
        {
            var stored = DurableJsonFile.Read(_path, GrafanaJsonContext.Default.ListSavedQuery) ?? [];
            _queries = stored.ToDictionary(static q => q.Name, StringComparer.Ordinal);
        }

        return _queries;
    }

    private void Save(Dictionary<string, SavedQuery> queries)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(_path)!);
        DurableJsonFile.Write(_path, [.. queries.Values.OrderBy(static q => q.Name, StringComparer.Ordinal)], GrafanaJsonContext.Default.ListSavedQuery);
        _queries = queries; // only once the file holds them
    }

    [GeneratedRegex("^[A-Za-z0-9_.-]{1,100}$")]
    private static partial Regex ValidName();
}
