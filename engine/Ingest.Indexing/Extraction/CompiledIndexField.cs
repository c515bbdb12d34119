using Ingest.Indexing.Definitions;
using Ingest.Indexing.Paths;

namespace Ingest.Indexing.Extraction;

/// <summary>A field ready for extraction: its path compiled once, when the definition is loaded.</summary>
internal sealed record CompiledIndexField(string Name, CompiledJsonPath Path, IndexFieldType Type, bool ExactCase)
{
    /// <summary>Compiles a field of a validated definition; a path that does not compile is a bug in the caller.</summary>
    public static CompiledIndexField Compile(IndexFieldDefinition field)
    {
        ArgumentNullException.ThrowIfNull(field);
        if (!JsonPathCompiler.TryCompile(field.Path, out var path, out var error))
        {
            throw new ArgumentException($"Field '{field.Name}' has a malformed path '{field.Path}': {error}. Validate definitions before compiling them.", nameof(field));
        }

        return new CompiledIndexField(field.Name, path, field.Type, field.ExactCase && field.Type == IndexFieldType.Keyword);
    }
}
