using System.Globalization;
using System.Text.Json;
using Ingest.Storage;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// When each automatic index was last used, kept in memory and saved to one small JSON file
/// (<c>{"Auto/Orders/ByTotal":"2026-11-23T14:00:00.0000000Z", ...}</c>, replaced atomically) every sweep, so a restart
/// neither forgets a busy index's use (and deletes it) nor restarts a dead one's idle clock (and keeps it for ever).
/// Thread-safe.
/// </summary>
internal sealed class AutoIndexUsageLog
{
    private readonly string _path;
    private readonly Lock _lock = new();
    private readonly Dictionary<string, DateTime> _lastUsed = new(StringComparer.Ordinal);
    private bool _dirty;

    private AutoIndexUsageLog(string path)
    {
        _path = path;
    }

    public static AutoIndexUsageLog Load(string path)
    {
        var log = new AutoIndexUsageLog(path);
        if (!File.Exists(path))
        {
            return log;
        }

        try
        {
            using var json = JsonDocument.Parse(File.ReadAllBytes(path));
            foreach (var property in json.RootElement.EnumerateObject())
            {
                if (property.Value.ValueKind == JsonValueKind.String
                    && DateTime.TryParse(property.Value.GetString(), CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var at))
                {
                    log._lastUsed[property.Name] = at;
                }
            }
        }
        catch (Exception ex) when (ex is JsonException or InvalidOperationException)
        {
            // A damaged file only costs the idle clocks: every index counts as used at start (see Open).
        }

        return log;
    }

    public DateTime? LastUsed(string name)
    {
        lock (_lock)
        {
            return _lastUsed.TryGetValue(name, out var at) ? at : null;
        }
    }

    public void Touch(string name, DateTime now)
    {
        lock (_lock)
        {
            if (!_lastUsed.TryGetValue(name, out var at) || at < now)
            {
                _lastUsed[name] = now;
                _dirty = true;
            }
        }
    }

    /// <summary>Records <paramref name="now"/> for an index that has no time yet; an existing time is kept.</summary>
    public DateTime GetOrStart(string name, DateTime now)
    {
        lock (_lock)
        {
            if (_lastUsed.TryGetValue(name, out var at))
            {
                return at;
            }

            _lastUsed[name] = now;
            _dirty = true;
            return now;
        }
    }

    /// <summary>Drops every name not in <paramref name="existing"/> (deleted indexes).</summary>
    public void KeepOnly(IReadOnlySet<string> existing)
    {
        lock (_lock)
        {
            foreach (var name in _lastUsed.Keys.Where(n => !existing.Contains(n)).ToList())
            {
                _lastUsed.Remove(name);
                _dirty = true;
            }
        }
    }

    /// <summary>Writes the file when something changed since the last save: a temporary file, synced, renamed over it and the directory synced.</summary>
    public void Save()
    {
        KeyValuePair<string, DateTime>[] entries;
        lock (_lock)
        {
            if (!_dirty)
            {
                return;
            }

            entries = [.. _lastUsed.OrderBy(e => e.Key, StringComparer.Ordinal)];
            _dirty = false;
        }

        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(_path)!);
            using (var file = DurableFileWriter.Create(_path))
            {
                using (var writer = new Utf8JsonWriter(file.Stream, new JsonWriterOptions { Indented = true }))
                {
                    writer.WriteStartObject();
                    foreach (var (name, at) in entries)
                    {
                        writer.WriteString(name, at.ToUniversalTime().ToString("O", CultureInfo.InvariantCulture));
                    }

                    writer.WriteEndObject();
                }

                file.Commit();
            }
        }
        catch
        {
            lock (_lock)
            {
                _dirty = true;
            }

            throw;
        }
    }
}
