namespace Ingest.Indexing.Paths;

internal enum JsonPathStepKind : byte
{
    /// <summary>Enter the named property of an object.</summary>
    Property,

    /// <summary>Visit every element of an array.</summary>
    Elements,
}
