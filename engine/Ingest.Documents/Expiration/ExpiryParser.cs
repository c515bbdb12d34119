using System.Text.Json;

namespace Ingest.Documents.Expiration;

/// <summary>
/// Finds the dates expiration needs in a document body without building a DOM: the document's own
/// <c>@metadata.@expires</c>, and a retention rule's top-level date field.
/// </summary>
internal static class ExpiryParser
{
    private static ReadOnlySpan<byte> ExpiresQuoted => "\"@expires\""u8;

    private static ReadOnlySpan<byte> Metadata => "@metadata"u8;

    private static ReadOnlySpan<byte> Expires => "@expires"u8;

    /// <summary>
    /// The UTC ticks of <c>@metadata.@expires</c>, or 0 when the document has none (or it is null).
    /// A body that does not contain the bytes <c>"@expires"</c> is not parsed at all.
    /// </summary>
    /// <exception cref="FormatException">The value is not an ISO 8601 date string; the message says what it is.</exception>
    public static long ReadExplicit(ReadOnlySpan<byte> body, int maxDepth)
    {
        if (body.IndexOf(ExpiresQuoted) < 0)
        {
            return 0;
        }

        var reader = new Utf8JsonReader(body, new JsonReaderOptions { MaxDepth = maxDepth });
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return 0; // not an object: the body check names that
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var isMetadata = reader.ValueTextEquals(Metadata);
                reader.Read();
                if (!isMetadata || reader.TokenType != JsonTokenType.StartObject)
                {
                    reader.Skip();
                    continue;
                }

                while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
                {
                    var isExpires = reader.ValueTextEquals(Expires);
                    reader.Read();
                    if (isExpires)
                    {
                        return reader.TokenType == JsonTokenType.Null ? 0 : ReadDate(ref reader, "@metadata.@expires", strict: true);
                    }

                    reader.Skip();
                }

                return 0;
            }
        }
        catch (JsonException)
        {
            return 0; // malformed JSON: the body check reports it with its position
        }

        return 0;
    }

    /// <summary>The UTC ticks of the date in the top-level property <paramref name="field"/> (UTF-8), or 0 when it is absent or not a date.</summary>
    public static long ReadField(ReadOnlySpan<byte> body, ReadOnlySpan<byte> field, int maxDepth)
    {
        var reader = new Utf8JsonReader(body, new JsonReaderOptions { MaxDepth = maxDepth });
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return 0;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var match = reader.ValueTextEquals(field);
                reader.Read();
                if (match)
                {
                    return reader.TokenType == JsonTokenType.String ? ReadDate(ref reader, null, strict: false) : 0;
                }

                reader.Skip();
            }
        }
        catch (JsonException)
        {
        }

        return 0;
    }

    /// <summary>Parses an ISO 8601 string; a date without an offset is UTC.</summary>
    private static long ReadDate(ref Utf8JsonReader reader, string? what, bool strict)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            if (reader.TryGetDateTime(out var date) && date.Kind == DateTimeKind.Unspecified)
            {
                return Math.Max(1, DateTime.SpecifyKind(date, DateTimeKind.Utc).Ticks);
            }

            if (reader.TryGetDateTimeOffset(out var offset))
            {
                return Math.Max(1, offset.UtcTicks);
            }
        }

        if (!strict)
        {
            return 0;
        }

        var shown = reader.TokenType == JsonTokenType.String ? $"the string \"{Shorten(reader.GetString()!)}\"" : $"a JSON {reader.TokenType}";
        throw new FormatException($"{what} is {shown}; it must be an ISO 8601 date string such as \"2026-12-01T00:00:00Z\".");
    }

    private static string Shorten(string text) => text.Length <= 64 ? text : string.Concat(text.AsSpan(0, 64), "...");
}
