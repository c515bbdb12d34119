using System.Globalization;
using System.Text;
using System.Text.Json;
using Jint;
using Jint.Native;

namespace Ingest.Server.Scripting;

/// <summary>
/// What <c>JSON.parse</c> gives for a JSON document, built straight from its UTF-8 bytes with
/// System.Text.Json's reader: the document is neither decoded to UTF-16 nor lexed a second time by
/// the engine's own parser, which was most of a transform's cost per document.
/// </summary>
internal static class Utf8JsonToJsValue
{
    /// <summary>Deeper documents are refused (the reader's default is 64, too few for some documents).</summary>
    public const int MaxDepth = 1_000;

    /// <exception cref="JsonException">The bytes are not one JSON value.</exception>
    public static JsValue Parse(Engine engine, ReadOnlySpan<byte> utf8)
    {
        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { MaxDepth = MaxDepth });
        if (!reader.Read())
        {
            throw new JsonException("The document is empty, not JSON.");
        }

        var value = Read(engine, ref reader);
        // The reader itself refuses anything after the value but whitespace.
        return reader.Read() ? throw new JsonException("The document holds more than one JSON value.") : value;
    }

    private static JsValue Read(Engine engine, ref Utf8JsonReader reader) => reader.TokenType switch
    {
        JsonTokenType.StartObject => ReadObject(engine, ref reader),
        JsonTokenType.StartArray => ReadArray(engine, ref reader),
        JsonTokenType.String => JsString.Create(reader.GetString()!),
        JsonTokenType.Number => JsNumber.Create(ReadNumber(ref reader)),
        JsonTokenType.True => JsBoolean.True,
        JsonTokenType.False => JsBoolean.False,
        JsonTokenType.Null => JsValue.Null,
        _ => throw new JsonException($"Unexpected JSON token {reader.TokenType}."),
    };

    private static JsObject ReadObject(Engine engine, ref Utf8JsonReader reader)
    {
        var result = new JsObject(engine);
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var name = reader.GetString()!;
            reader.Read();
            // A data property as JSON.parse defines it: "__proto__" is an own property, the last duplicate wins.
            result.FastSetDataProperty(name, Read(engine, ref reader));
        }

        return result;
    }

    private static JsArray ReadArray(Engine engine, ref Utf8JsonReader reader)
    {
        var items = new List<JsValue>();
        while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
        {
            items.Add(Read(engine, ref reader));
        }

        return new JsArray(engine, [.. items]);
    }

    /// <summary>The number as JavaScript reads it: one too large for a double is ±Infinity, as in <c>JSON.parse</c>.</summary>
    private static double ReadNumber(ref Utf8JsonReader reader) => reader.TryGetDouble(out var number)
        ? number
        : double.Parse(Encoding.UTF8.GetString(reader.ValueSpan), NumberStyles.Float, CultureInfo.InvariantCulture);
}
