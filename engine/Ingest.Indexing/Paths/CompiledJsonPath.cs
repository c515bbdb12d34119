using System.Collections.Immutable;

namespace Ingest.Indexing.Paths;

/// <summary>A path compiled once per definition and walked for every document: the steps from the document's root object.</summary>
public sealed record CompiledJsonPath(string Text, ImmutableArray<JsonPathStep> Steps)
{
    public override string ToString() => Text;
}
