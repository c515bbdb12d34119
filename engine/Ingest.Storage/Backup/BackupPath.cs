namespace Ingest.Storage.Backup;

/// <summary>The relative, '/'-separated paths entries carry: checked when written and again when restored, so an entry never lands outside the restored directory.</summary>
internal static class BackupPath
{
    public static string Validate(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (!IsValid(path))
        {
            throw new ArgumentException($"'{path}' is not a relative path of plain names separated by '/'.", nameof(path));
        }

        return path;
    }

    public static bool IsValid(string path)
    {
        if (path.Length == 0 || path.Length > BackupFormat.MaxPathBytes / 4)
        {
            return false;
        }

        foreach (var segment in path.Split('/'))
        {
            if (segment.Length == 0 || segment is "." or ".." || segment.Contains('\\', StringComparison.Ordinal) || segment.Contains('\0', StringComparison.Ordinal))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The entry's place under <paramref name="root"/>.</summary>
    public static string Under(string root, string path) => Path.Combine(root, path.Replace('/', Path.DirectorySeparatorChar));
}
