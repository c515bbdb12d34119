using System.Text.Json;
using Ingest.Indexing.Paths;

namespace Ingest.Query.Execution;

/// <summary>
/// Copies the values a compiled path reaches in a document to a writer, as raw JSON, in one forward read of the
/// document: properties not on the path are skipped unparsed, nothing is allocated.
/// </summary>
internal static class JsonProjection
{
    /// <summary>Writes the value at <paramref name="path"/> (null when missing), or for a path with <c>[]</c> an array of every value reached.</summary>
    public static void Write(ReadOnlySpan<byte> document, CompiledJsonPath path, bool isArray, Utf8JsonWriter writer)
    {
        var reader = new Utf8JsonReader(document, new JsonReaderOptions { MaxDepth = 256 });
        if (isArray)
        {
            writer.WriteStartArray();
        }

        var written = reader.Read() && Walk(ref reader, document, path, 0, isArray, writer);
        if (isArray)
        {
            writer.WriteEndArray();
        }
        else if (!written)
        {
            writer.WriteNullValue();
        }
    }

    /// <summary>The reader is on a value; consumes it. Returns whether a value was written (the first one only when not collecting an array).</summary>
    private static bool Walk(ref Utf8JsonReader reader, ReadOnlySpan<byte> document, CompiledJsonPath path, int step, bool all, Utf8JsonWriter writer)
    {
        if (step == path.Steps.Length)
        {
            var start = (int)reader.TokenStartIndex;
            if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray)
            {
                reader.Skip();
            }

            writer.WriteRawValue(document[start..(int)reader.BytesConsumed], skipInputValidation: true);
            return true;
        }

        var current = path.Steps[step];
        var written = false;
        if (current.Kind == JsonPathStepKind.Property && reader.TokenType == JsonTokenType.StartObject)
        {
            var name = current.Utf8Name.AsSpan();
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var matches = !written && reader.ValueTextEquals(name);
                reader.Read();
                if (matches)
                {
                    written = Walk(ref reader, document, path, step + 1, all, writer);
                }
                else
                {
                    reader.Skip();
                }
            }

            return written;
        }

        if (current.Kind == JsonPathStepKind.Elements && reader.TokenType == JsonTokenType.StartArray)
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                if (written && !all)
                {
                    reader.Skip();
                    continue;
                }

                written |= Walk(ref reader, document, path, step + 1, all, writer);
            }

            return written;
        }

        reader.Skip();
        return false;
    }
}
