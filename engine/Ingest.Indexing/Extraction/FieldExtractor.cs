using System.Text.Json;
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
/// Which scalars each type takes is <see cref="ValueEmitter"/>'s business.
/// </summary>
internal static class FieldExtractor
{
    // Deeper than the document store accepts by default (128), so stored documents are never refused for depth here.
    internal static readonly JsonReaderOptions ReaderOptions = new() { MaxDepth = 1024 };

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

        if (!ValueEmitter.TryEmit(ref reader, field, terms))
        {
            wrongTypes++;
        }
    }
}
