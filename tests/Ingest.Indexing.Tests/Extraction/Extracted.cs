using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

/// <summary>One field's extraction from one document, with its terms copied out of the buffer.</summary>
internal sealed record Extracted(IReadOnlyList<byte[]> Terms, FieldExtraction Result)
{
    public static Extracted From(string json, string path, IndexFieldType type, bool exactCase = false)
    {
        using var buffer = new TermBuffer(initialBytes: 16, initialTerms: 2);
        return From(Encoding.UTF8.GetBytes(json), path, type, exactCase, buffer);
    }

    public static Extracted From(byte[] json, string path, IndexFieldType type, bool exactCase, TermBuffer buffer)
    {
        var field = CompiledIndexField.Compile(new IndexFieldDefinition("F", path, type, exactCase));
        var result = FieldExtractor.Extract(json, field, buffer);
        var terms = Enumerable.Range(result.FirstTerm, result.TermCount).Select(i => buffer[i].ToArray()).ToArray();
        return new Extracted(terms, result);
    }

    /// <summary>The terms as strings, for keyword and text fields.</summary>
    public IReadOnlyList<string> Strings => [.. Terms.Select(t => Encoding.UTF8.GetString(t))];
}
