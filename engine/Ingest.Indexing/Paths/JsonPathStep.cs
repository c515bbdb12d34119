using System.Collections.Immutable;

namespace Ingest.Indexing.Paths;

/// <summary>One step of a compiled path; <see cref="Utf8Name"/> is set for property steps, empty for element steps.</summary>
public readonly record struct JsonPathStep(JsonPathStepKind Kind, ImmutableArray<byte> Utf8Name)
{
    public static JsonPathStep Elements { get; } = new(JsonPathStepKind.Elements, []);

    public static JsonPathStep Property(string name) => new(JsonPathStepKind.Property, [.. System.Text.Encoding.UTF8.GetBytes(name)]);
}
