using Ingest.Storage.Paging;

namespace Ingest.Storage.Backup;

/// <summary>What a backup of a directory tree holds: its environments (directories with a data file) and its other files.</summary>
public static class BackupSources
{
    /// <summary>
    /// Walks <paramref name="root"/>: a directory holding a data file is an environment (its journal and lock file
    /// are not copied: its snapshot is), any other file is copied as it is, except temporary files (<c>*.tmp</c>, the
    /// half of an atomic replace that has not happened). Paths are relative, '/'-separated and sorted.
    /// </summary>
    /// <param name="skip">Paths (files or directories) left out, such as the server's lock file.</param>
    public static (IReadOnlyList<string> Environments, IReadOnlyList<string> Files) Scan(string root, Func<string, bool> skip)
    {
        ArgumentException.ThrowIfNullOrEmpty(root);
        ArgumentNullException.ThrowIfNull(skip);
        var environments = new List<string>();
        var files = new List<string>();
        Walk(Path.GetFullPath(root), string.Empty, skip, environments, files);
        environments.Sort(StringComparer.Ordinal);
        files.Sort(StringComparer.Ordinal);
        return (environments, files);
    }

    private static void Walk(string directory, string relative, Func<string, bool> skip, List<string> environments, List<string> files)
    {
        if (relative.Length > 0 && File.Exists(Path.Combine(directory, DataFile.FileName)))
        {
            environments.Add(relative);
            return;
        }

        foreach (var file in Directory.EnumerateFiles(directory))
        {
            var path = Join(relative, Path.GetFileName(file));
            if (!path.EndsWith(".tmp", StringComparison.Ordinal) && !skip(path))
            {
                files.Add(path);
            }
        }

        foreach (var child in Directory.EnumerateDirectories(directory))
        {
            var path = Join(relative, Path.GetFileName(child));
            if (!skip(path))
            {
                Walk(child, path, skip, environments, files);
            }
        }
    }

    private static string Join(string relative, string name) => relative.Length == 0 ? name : relative + "/" + name;
}
