using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>Writes a <see cref="RawJson"/> as its bytes; reads any JSON value into one, keeping its text exactly.</summary>
public sealed class RawJsonConverter : JsonConverter<RawJson>
{
    public override bool HandleNull => true;

    public override RawJson Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return default;
        }

        var element = JsonElement.ParseValue(ref reader);
        return new RawJson(JsonMarshal.GetRawUtf8Value(element).ToArray());
    }

    public override void Write(Utf8JsonWriter writer, RawJson value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        if (value.IsEmpty)
        {
            writer.WriteNullValue();
            return;
        }

        // The store validated the JSON when it was written; checking it again on every read would be wasted work.
        writer.WriteRawValue(value.Utf8.Span, skipInputValidation: true);
    }
}
