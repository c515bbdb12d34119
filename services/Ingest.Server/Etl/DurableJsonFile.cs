using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace Ingest.Server.Etl;

/// <summary>
/// A small JSON file replaced atomically: written to a temporary file, flushed to disk, then renamed
/// over the old one, so a crash leaves the old or the new content, never a torn one.
/// </summary>
internal static class DurableJsonFile
{
    public static T? Read<T>(string path, JsonTypeInfo<T> typeInfo)
    {
        if (!File.Exists(path))
        {
            return default;
        }

        try
        {
            return JsonSerializer.Deserialize(File.ReadAllBytes(path), typeInfo);
        }
        catch (JsonException ex)
        {
            throw new InvalidOperationException($"The state file '{path}' is not valid JSON ({ex.Message}); move it aside to start without it.", ex);
        }
    }

    public static void Write<T>(string path, T value, JsonTypeInfo<T> typeInfo)
    {
        var temporary = path + ".tmp";
        using (var stream = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            JsonSerializer.Serialize(stream, value, typeInfo);
            stream.Flush(flushToDisk: true);
        }

        File.Move(temporary, path, overwrite: true);
    }
}
