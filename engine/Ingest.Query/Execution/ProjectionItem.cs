using Ingest.Indexing.Paths;

namespace Ingest.Query.Execution;

/// <summary>
/// One selected value: the property <paramref name="Name"/> of each result object, read from the document at
/// <paramref name="Path"/> (null for the document id). A path with <c>[]</c> gives an array of every value it reaches.
/// </summary>
internal sealed record ProjectionItem(string Name, CompiledJsonPath? Path, bool IsArray)
{
    public byte[] Utf8Name { get; } = System.Text.Encoding.UTF8.GetBytes(Name);
}
