using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Paths;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Extraction;

/// <summary>
/// Walks a field's path through a document's UTF-8 JSON with one <see cref="Utf8JsonReader"/> over the span and appends
/// the field's terms to a reused <see cref="TermBuffer"/>; nothing is allocated per value.
/// <list type="bullet">
/// <item>A property step visits every property of that name (ordinal match; a repeated name is visited each time);
/// a missing property or a null on the way counts as null.</item>
/// <item>An element step (<c>[]</c>) visits every element; an empty array gives nothing, not null.</item>
/// <item>A value of the wrong JSON type, on the way or at the end, is skipped and counted: an object or array where
/// the path wants a value (<c>Tags</c> over an array is wrong; <c>Tags[]</c> is the path for its elements), a scalar
/// where it wants an object or array, a number in a keyword field, a string that is not a date in a datetime field.</item>
/// </list>
/// Value types: keyword and text take strings; number takes any JSON number (int64 exactly where it fits, otherwise
/// double); datetime takes ISO 8601 strings (with Z or an offset, converted to UTC; without one, taken as UTC) and
/// integer epoch milliseconds; bool takes true and false.
/// </summary>
internal static class FieldExtractor
{
    // Deeper than the document store accepts by default (128), so stored documents are never refused for depth here.
    private static readonly JsonReaderOptions ReaderOptions = new() { MaxDepth = 1024 };

    private const long MinEpochMillis = -62_135_596_800_000; // 0001-01-01T00:00:00Z
    private const long MaxEpochMillis = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

    /// <summary>
    /// Appends <paramref name="field"/>'s terms in <paramref name="document"/> to <paramref name="terms"/>. Only the part
    /// of the document up to the end of the last value the path can reach is read; the document store has already
    /// checked that the whole is valid JSON.
    /// </summary>
    public static FieldExtraction Extract(ReadOnlySpan<byte> document, CompiledIndexField field, TermBuffer terms)
    {
        ArgumentNullException.ThrowIfNull(field);
        ArgumentNullException.ThrowIfNull(terms);
        var first = terms.Count;
        var nulls = 0;
        var wrongTypes = 0;
        try
        {
            var reader = new Utf8JsonReader(document, ReaderOptions);
            reader.Read();
            Walk(ref reader, field, 0, terms, ref nulls, ref wrongTypes);
        }
        catch (JsonException)
        {
            terms.Truncate(first);
            return new FieldExtraction(first, 0, 0, 1, Malformed: true);
        }

        return new FieldExtraction(first, terms.Count - first, nulls, wrongTypes);
    }

    /// <summary>The reader is on the first token of a value; it is left on that value's last token.</summary>
    private static void Walk(ref Utf8JsonReader reader, CompiledIndexField field, int step, TermBuffer terms, ref int nulls, ref int wrongTypes)
    {
        var steps = field.Path.Steps;
        if (step == steps.Length)
        {
            Emit(ref reader, field, terms, ref nulls, ref wrongTypes);
            return;
        }

        var kind = steps[step].Kind;
        switch (reader.TokenType)
        {
            case JsonTokenType.Null:
                nulls++;
                return;

            case JsonTokenType.StartObject when kind == JsonPathStepKind.Property:
                var name = steps[step].Utf8Name.AsSpan();
                var found = false;
                while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
                {
                    var matches = reader.ValueTextEquals(name);
                    reader.Read();
                    if (matches)
                    {
                        found = true;
                        Walk(ref reader, field, step + 1, terms, ref nulls, ref wrongTypes);
                    }
                    else
                    {
                        reader.Skip();
                    }
                }

                if (!found)
                {
                    nulls++;
                }

                return;

            case JsonTokenType.StartArray when kind == JsonPathStepKind.Elements:
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    Walk(ref reader, field, step + 1, terms, ref nulls, ref wrongTypes);
                }

                return;

            default:
                wrongTypes++;
                reader.Skip();
                return;
        }
    }

    private static void Emit(ref Utf8JsonReader reader, CompiledIndexField field, TermBuffer terms, ref int nulls, ref int wrongTypes)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.Null:
                nulls++;
                return;
            case JsonTokenType.StartObject or JsonTokenType.StartArray:
                wrongTypes++;
                reader.Skip();
                return;
        }

        var emitted = field.Type switch
        {
            IndexFieldType.Keyword => EmitKeyword(ref reader, field.ExactCase, terms),
            IndexFieldType.Text => EmitText(ref reader, terms),
            IndexFieldType.Number => EmitNumber(ref reader, terms),
            IndexFieldType.DateTime => EmitDateTime(ref reader, terms),
            IndexFieldType.Bool => EmitBool(ref reader, terms),
            _ => false,
        };
        if (!emitted)
        {
            wrongTypes++;
        }
    }

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

        terms.Commit(NumberTerm.Size);
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
        terms.Commit(DateTimeTerm.Size);
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
