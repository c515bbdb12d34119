using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using Jint;
using Jint.Native;

namespace Ingest.Server.Scripting;

/// <summary>
/// What <c>JSON.parse</c> gives for a JSON document, built straight from its UTF-8 bytes with
/// System.Text.Json's reader: the document is neither decoded to UTF-16 nor lexed a second time by
/// the engine's own parser, which was most of a transform's cost per document. A transform sees
/// document after document of the same shape, so property names are decoded once and then found by
/// their bytes (<see cref="PropertyNames"/>), and arrays are gathered in lists kept from one document
/// to the next. One per engine, used by one caller at a time (the script host's lock).
/// </summary>
internal sealed class Utf8JsonToJsValue(Engine engine)
{
    /// <summary>Deeper documents are refused (the reader's default is 64, too few for some documents).</summary>
    public const int MaxDepth = 1_000;

    private readonly Utf8PropertyNames _names = new();
    private readonly List<List<JsValue>> _arrays = [];
    private int _arrayDepth;

    /// <exception cref="JsonException">The bytes are not one JSON value.</exception>
    public JsValue Parse(ReadOnlySpan<byte> utf8)
    {
        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { MaxDepth = MaxDepth });
        if (!reader.Read())
        {
            throw new JsonException("The document is empty, not JSON.");
        }

        var value = Read(ref reader);
        // The reader itself refuses anything after the value but whitespace.
        return reader.Read() ? throw new JsonException("The document holds more than one JSON value.") : value;
    }

    private JsValue Read(ref Utf8JsonReader reader) => reader.TokenType switch
    {
        JsonTokenType.StartObject => ReadObject(ref reader),
        JsonTokenType.StartArray => ReadArray(ref reader),
        JsonTokenType.String => JsString.Create(reader.GetString()!),
        JsonTokenType.Number => JsNumber.Create(ReadNumber(ref reader)),
        JsonTokenType.True => JsBoolean.True,
        JsonTokenType.False => JsBoolean.False,
        JsonTokenType.Null => JsValue.Null,
        _ => throw new JsonException($"Unexpected JSON token {reader.TokenType}."),
    };

    private JsObject ReadObject(ref Utf8JsonReader reader)
    {
        var result = new JsObject(engine);
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            // An escaped name is decoded each time: its bytes are not the name's.
            var name = reader.ValueIsEscaped ? reader.GetString()! : _names.Get(reader.ValueSpan);
            reader.Read();
            // A data property as JSON.parse defines it: "__proto__" is an own property, the last duplicate wins.
            result.FastSetDataProperty(name, Read(ref reader));
        }

        return result;
    }

    private JsArray ReadArray(ref Utf8JsonReader reader)
    {
        if (_arrayDepth == _arrays.Count)
        {
            _arrays.Add([]);
        }

        var items = _arrays[_arrayDepth++];
        try
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                items.Add(Read(ref reader));
            }

            return new JsArray(engine, CollectionsMarshal.AsSpan(items).ToArray());
        }
        finally
        {
            // Also after a malformed document: the next one starts with empty lists.
            items.Clear();
            _arrayDepth--;
        }
    }

    /// <summary>The number as JavaScript reads it: one too large for a double is ±Infinity, as in <c>JSON.parse</c>.</summary>
    private static double ReadNumber(ref Utf8JsonReader reader) => reader.TryGetDouble(out var number)
        ? number
        : double.Parse(Encoding.UTF8.GetString(reader.ValueSpan), NumberStyles.Float, CultureInfo.InvariantCulture);
}
