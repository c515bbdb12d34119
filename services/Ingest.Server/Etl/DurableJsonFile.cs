using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Ingest.Storage;

namespace Ingest.Server.Etl;

/// <summary>
/// A small JSON file replaced atomically and durably through <see cref="DurableFileWriter"/>, so a crash or a power
/// failure leaves the old or the new content, never a torn one or none.
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
        using var file = DurableFileWriter.Create(path);
        JsonSerializer.Serialize(file.Stream, value, typeInfo);
        file.Commit();
    }
}
