using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;
using Ingest.Query.Syntax;

namespace Ingest.Query.Binding;

/// <summary>
/// Turns a query's literal into the term bytes the index holds for it (Terms/ encodings), checking its type against the
/// field's: keyword and text take strings, number takes numbers, datetime takes an ISO 8601 string or integer epoch
/// milliseconds, bool takes true/false. Keywords are folded unless the field is exactCase and cut like indexed terms.
/// </summary>
public static class ValueBinder
{
    private const long MinEpochMillis = -62_135_596_800_000; // 0001-01-01T00:00:00Z, as extraction accepts
    private const long MaxEpochMillis = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

    /// <summary>The term of <paramref name="literal"/> (already resolved: not a parameter, not null) in <paramref name="field"/>.</summary>
    /// <exception cref="QueryException"><c>field 'Total' is a number; expected a number but found 'abc'</c>, at the value.</exception>
    public static byte[] EncodeTerm(QueryValue literal, BoundField field)
    {
        ArgumentNullException.ThrowIfNull(literal);
        ArgumentNullException.ThrowIfNull(field);
        switch (field.Type)
        {
            case IndexFieldType.Keyword:
            case IndexFieldType.Text:
                return EncodeKeyword(ExpectString(literal, field), field.Definition?.ExactCase ?? false);
            case IndexFieldType.Number:
                return IndexTerms.Number(ExpectNumber(literal, field));
            case IndexFieldType.DateTime:
                return IndexTerms.DateTime(ReadDateTimeTicks(literal, field));
            case IndexFieldType.Bool:
                return literal is BoolValue b ? IndexTerms.Bool(b.Value) : throw Mismatch(literal, field, "true or false");
            default:
                throw new ArgumentOutOfRangeException(nameof(field), field.Type, "not a field type");
        }
    }

    /// <summary>A string literal (for <c>startsWith</c>, <c>search</c>, keyword values and ids).</summary>
    public static string ExpectString(QueryValue literal, BoundField field)
    {
        ArgumentNullException.ThrowIfNull(literal);
        ArgumentNullException.ThrowIfNull(field);
        return literal is StringValue s ? s.Value : throw Mismatch(literal, field, "a string");
    }

    /// <summary>The keyword term of a string: UTF-8, lower-cased unless <paramref name="exactCase"/>, cut at 1,024 bytes on a character boundary.</summary>
    public static byte[] EncodeKeyword(string value, bool exactCase) => IndexTerms.Keyword(value, exactCase);

    /// <summary>The words of <c>search(F, 'words')</c> as the index's tokenizer makes them, distinct.</summary>
    public static IReadOnlyList<byte[]> Tokenize(string text) => IndexTerms.TextWords(text);

    private static double ExpectNumber(QueryValue literal, BoundField field)
    {
        if (literal is not NumberValue n)
        {
            throw Mismatch(literal, field, "a number");
        }

        // Integers beyond 2^53 round as the index rounds int64 values (to the nearest double).
        return long.TryParse(n.Text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var integer) ? integer : n.Value;
    }

    /// <summary>UTC ticks of a datetime literal: an ISO 8601 string read as extraction reads it, or integer epoch milliseconds.</summary>
    public static long ReadDateTimeTicks(QueryValue literal, BoundField field)
    {
        ArgumentNullException.ThrowIfNull(literal);
        ArgumentNullException.ThrowIfNull(field);
        const string expected = "an ISO 8601 date string or a number of epoch milliseconds";
        if (literal is NumberValue n)
        {
            if (long.TryParse(n.Text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var millis) && millis is >= MinEpochMillis and <= MaxEpochMillis)
            {
                return DateTime.UnixEpoch.Ticks + (millis * TimeSpan.TicksPerMillisecond);
            }

            throw Mismatch(literal, field, "whole epoch milliseconds between years 1 and 9999 or an ISO 8601 date string");
        }

        if (literal is not StringValue s)
        {
            throw Mismatch(literal, field, expected);
        }

        // The same parser as extraction (System.Text.Json's ISO 8601), so a value matches what the index holds for it.
        var json = JsonSerializer.SerializeToUtf8Bytes(s.Value);
        var reader = new Utf8JsonReader(json);
        reader.Read();
        var hasOffset = s.Value.Length > 10 && s.Value.AsSpan(10).IndexOfAny("Z+-") >= 0;
        if (hasOffset && reader.TryGetDateTimeOffset(out var withOffset))
        {
            return withOffset.UtcTicks;
        }

        if (!hasOffset && reader.TryGetDateTime(out var utc))
        {
            return utc.Ticks;
        }

        throw new QueryException(literal.Position, $"field '{field.Name}' is a datetime; expected {expected} but found {LiteralText.Describe(literal)}");
    }

    private static QueryException Mismatch(QueryValue literal, BoundField field, string expected) =>
        new(literal.Position, $"field '{field.Name}' is a {LiteralText.TypeName(field.Type)}; expected {expected} but found {LiteralText.Describe(literal)}");
}
