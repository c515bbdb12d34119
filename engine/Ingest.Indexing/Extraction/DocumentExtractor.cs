using System.Text.Json;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Extraction;

/// <summary>
/// Extracts every field of an index from a document in one pass of one <see cref="Utf8JsonReader"/>: the fields' paths
/// are merged into a <see cref="PathTrieNode"/> tree, and each value of the document is visited at most once whatever
/// the number of fields. The result for each field is the same as <see cref="FieldExtractor"/> gives for it alone (a
/// property is test-checked against it on random documents); the terms of different fields interleave in the buffer,
/// each tagged with its field's ordinal (<see cref="TermBuffer.FieldOf"/>), in document order within a field.
/// Immutable once built; one per definition, usable from any number of threads, each with its own buffer.
/// </summary>
internal sealed class DocumentExtractor
{
    private readonly PathTrieNode _root;

    public DocumentExtractor(IReadOnlyList<CompiledIndexField> fields)
    {
        ArgumentNullException.ThrowIfNull(fields);
        Fields = fields;
        _root = PathTrieNode.Build(fields);
    }

    /// <summary>The fields, by ordinal.</summary>
    public IReadOnlyList<CompiledIndexField> Fields { get; }

    /// <summary>
    /// Appends the document's terms for every field and fills <paramref name="tallies"/> (one per field). Returns false
    /// when the document is not valid JSON: then no terms are kept and every field counts one wrong type.
    /// </summary>
    public bool Extract(ReadOnlySpan<byte> document, TermBuffer terms, Span<FieldTally> tallies)
    {
        ArgumentNullException.ThrowIfNull(terms);
        ArgumentOutOfRangeException.ThrowIfLessThan(tallies.Length, Fields.Count, nameof(tallies));
        tallies.Clear();
        var first = terms.Count;
        try
        {
            var reader = new Utf8JsonReader(document, FieldExtractor.ReaderOptions);
            reader.Read();
            Walk(ref reader, _root, terms, tallies);
            return true;
        }
        catch (JsonException)
        {
            terms.Truncate(first);
            tallies.Clear();
            foreach (ref var tally in tallies[..Fields.Count])
            {
                tally.WrongTypeCount = 1;
            }

            return false;
        }
    }

    /// <summary>The reader is on the first token of a value; it is left on that value's last token.</summary>
    private void Walk(ref Utf8JsonReader reader, PathTrieNode node, TermBuffer terms, Span<FieldTally> tallies)
    {
        var token = reader.TokenType;
        foreach (var field in node.TerminalFields)
        {
            if (token == JsonTokenType.Null)
            {
                tallies[field].NullCount++;
            }
            else if (token is JsonTokenType.StartObject or JsonTokenType.StartArray)
            {
                tallies[field].WrongTypeCount++;
            }
            else
            {
                var before = terms.Count;
                terms.CurrentField = field;
                if (ValueEmitter.TryEmit(ref reader, Fields[field], terms))
                {
                    tallies[field].TermCount += terms.Count - before;
                }
                else
                {
                    tallies[field].WrongTypeCount++;
                }
            }
        }

        switch (token)
        {
            case JsonTokenType.Null:
                Count(node.FieldsThroughProperties, tallies, nulls: true);
                Count(node.FieldsThroughElements, tallies, nulls: true);
                return;

            case JsonTokenType.StartObject when node.PropertyNodes.Length > 0:
                Count(node.FieldsThroughElements, tallies, nulls: false);
                WalkObject(ref reader, node, terms, tallies);
                return;

            case JsonTokenType.StartArray when node.Elements != null:
                Count(node.FieldsThroughProperties, tallies, nulls: false);
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    Walk(ref reader, node.Elements, terms, tallies);
                }

                return;

            default:
                Count(node.FieldsThroughProperties, tallies, nulls: false);
                Count(node.FieldsThroughElements, tallies, nulls: false);
                reader.Skip();
                return;
        }
    }

    private void WalkObject(ref Utf8JsonReader reader, PathTrieNode node, TermBuffer terms, Span<FieldTally> tallies)
    {
        var names = node.PropertyNames;
        Span<bool> found = names.Length <= 64 ? stackalloc bool[names.Length] : new bool[names.Length];
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var match = -1;
            for (var i = 0; i < names.Length; i++)
            {
                if (reader.ValueTextEquals(names[i].AsSpan()))
                {
                    match = i;
                    break;
                }
            }

            reader.Read();
            if (match < 0)
            {
                reader.Skip();
                continue;
            }

            found[match] = true;
            Walk(ref reader, node.PropertyNodes[match], terms, tallies);
        }

        for (var i = 0; i < names.Length; i++)
        {
            if (!found[i])
            {
                Count(node.PropertyNodes[i].FieldsBelow, tallies, nulls: true);
            }
        }
    }

    private static void Count(int[] fields, Span<FieldTally> tallies, bool nulls)
    {
        foreach (var field in fields)
        {
            if (nulls)
            {
                tallies[field].NullCount++;
            }
            else
            {
                tallies[field].WrongTypeCount++;
            }
        }
    }
}
