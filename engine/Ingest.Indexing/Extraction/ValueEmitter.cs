using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Extraction;

/// <summary>
/// Turns one scalar JSON value into a field's terms. Keyword and text take strings; number takes any JSON number
/// (int64 exactly where it fits, otherwise double); datetime takes ISO 8601 strings (with Z or an offset, converted to
/// UTC; without one, taken as UTC) and integer epoch milliseconds; bool takes true and false. Anything else is the
/// wrong type: nothing is emitted and the caller counts it.
/// </summary>
internal static class ValueEmitter
{
    private const long MinEpochMillis = -62_135_596_800_000; // 0001-01-01T00:00:00Z
    private const long MaxEpochMillis = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

    /// <summary>The reader is on a scalar other than null; false when it is of the wrong type for <paramref name="field"/>.</summary>
    public static bool TryEmit(ref Utf8JsonReader reader, CompiledIndexField field, TermBuffer terms) => field.Type switch
    {
        IndexFieldType.Keyword => EmitKeyword(ref reader, field.ExactCase, terms),
        IndexFieldType.Text => EmitText(ref reader, terms),
        IndexFieldType.Number => EmitNumber(ref reader, terms),
        IndexFieldType.DateTime => EmitDateTime(ref reader, terms),
        IndexFieldType.Bool => EmitBool(ref reader, terms),
        _ => false,
    };

    private static bool EmitKeyword(ref Utf8JsonReader reader, bool exactCase, TermBuffer terms)
    {
        if (reader.TokenType != JsonTokenType.String)
        {
            return false;
        }

        KeywordTerm.Write(Unescaped(ref reader, terms), exactCase, terms);
        return true;
    }

    private static bool EmitText(ref Utf8JsonReader reader, TermBuffer terms)
    {
        if (reader.TokenType != JsonTokenType.String)
        {
            return false;
        }

        TextTokenizer.Tokenize(Unescaped(ref reader, terms), terms);
        return true;
    }

    private static bool EmitNumber(ref Utf8JsonReader reader, TermBuffer terms)
    {
        if (reader.TokenType != JsonTokenType.Number)
        {
            return false;
        }

        if (reader.TryGetInt64(out var integer))
        {
            NumberTerm.Write(integer, terms.GetSpan(NumberTerm.Size));
        }
        else if (reader.TryGetDouble(out var real))
        {
            NumberTerm.Write(real, terms.GetSpan(NumberTerm.Size));
        }
        else
        {
            return false;
        }

        terms.Advance(NumberTerm.Size);
        return true;
    }

    private static bool EmitDateTime(ref Utf8JsonReader reader, TermBuffer terms)
    {
        long ticks;
        if (reader.TokenType == JsonTokenType.Number)
        {
            if (!reader.TryGetInt64(out var millis) || millis is < MinEpochMillis or > MaxEpochMillis)
            {
                return false;
            }

            ticks = DateTime.UnixEpoch.Ticks + (millis * TimeSpan.TicksPerMillisecond);
        }
        else if (reader.TokenType == JsonTokenType.String)
        {
            if (HasOffset(Unescaped(ref reader, terms)))
            {
                if (!reader.TryGetDateTimeOffset(out var withOffset))
                {
                    return false;
                }

                ticks = withOffset.UtcTicks;
            }
            else
            {
                if (!reader.TryGetDateTime(out var local))
                {
                    return false;
                }

                ticks = local.Ticks; // no offset: taken as UTC
            }
        }
        else
        {
            return false;
        }

        DateTimeTerm.Write(ticks, terms.GetSpan(DateTimeTerm.Size));
        terms.Advance(DateTimeTerm.Size);
        return true;
    }

    private static bool EmitBool(ref Utf8JsonReader reader, TermBuffer terms)
    {
        if (reader.TokenType is not (JsonTokenType.True or JsonTokenType.False))
        {
            return false;
        }

        terms.Add([BoolTerm.Encode(reader.TokenType == JsonTokenType.True)]);
        return true;
    }

    /// <summary>Whether an ISO 8601 string ends in Z or a ±hh:mm offset: the date part (10 characters) has '-' of its own.</summary>
    private static bool HasOffset(ReadOnlySpan<byte> iso) =>
        iso.Length > 10 && iso[10..].IndexOfAny("Z+-"u8) >= 0;

    /// <summary>The string's bytes without JSON escapes; escaped strings are unescaped into the buffer's scratch area.</summary>
    private static ReadOnlySpan<byte> Unescaped(ref Utf8JsonReader reader, TermBuffer terms)
    {
        if (!reader.ValueIsEscaped)
        {
            return reader.ValueSpan;
        }

        var scratch = terms.Scratch(reader.ValueSpan.Length);
        return scratch[..reader.CopyString(scratch)];
    }
}
