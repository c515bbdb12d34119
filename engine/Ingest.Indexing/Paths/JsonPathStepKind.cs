namespace Ingest.Indexing.Paths;

public enum JsonPathStepKind : byte
{
    /// <summary>Enter the named property of an object.</summary>
    Property,

    /// <summary>Visit every element of an array.</summary>
    Elements,
}
