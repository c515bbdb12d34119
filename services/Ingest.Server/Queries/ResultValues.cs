using System.Globalization;
using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>How the values of a <see cref="ResultTable"/> are written for Grafana.</summary>
internal static class ResultValues
{
    /// <summary>Epoch milliseconds of an ISO 8601 value, or null when it is not one.</summary>
    public static long? EpochMilliseconds(JsonElement? value) =>
        value is { ValueKind: JsonValueKind.String } text && text.TryGetDateTimeOffset(out var time) ? time.ToUnixTimeMilliseconds() : null;

    /// <summary>The value as plain text: strings unquoted, numbers and booleans as JSON writes them, null as empty.</summary>
    public static string Text(JsonElement? value) => value switch
    {
        null => string.Empty,
        { ValueKind: JsonValueKind.Null } => string.Empty,
        { ValueKind: JsonValueKind.String } text => text.GetString() ?? string.Empty,
        { } other => other.GetRawText(),
    };

    /// <summary>Writes the value as a Grafana cell: numbers, strings and booleans as they are, objects and arrays as JSON text.</summary>
    public static void WriteCell(Utf8JsonWriter writer, JsonElement? value)
    {
        switch (value)
        {
            case null:
                writer.WriteNullValue();
                break;
            case { ValueKind: JsonValueKind.Object or JsonValueKind.Array } nested:
                writer.WriteStringValue(nested.GetRawText());
                break;
            case { } plain:
                plain.WriteTo(writer);
                break;
        }
    }

    /// <summary>Writes epoch milliseconds for an ISO 8601 value, else the value as a cell.</summary>
    public static void WriteTimeCell(Utf8JsonWriter writer, JsonElement? value)
    {
        if (EpochMilliseconds(value) is { } ms)
        {
            writer.WriteNumberValue(ms);
        }
        else
        {
            WriteCell(writer, value);
        }
    }

    public static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);
}
