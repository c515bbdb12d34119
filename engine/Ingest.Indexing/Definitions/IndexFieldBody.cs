namespace Ingest.Indexing.Definitions;

/// <summary>A field as JSON carries it: everything optional and the type a string, so that each problem is reported by the validator, not as a JSON exception.</summary>
internal sealed class IndexFieldBody
{
    public string? Name { get; set; }

    public string? Path { get; set; }

    public string? Type { get; set; }

    /// <summary>Written only when true, so a definition's JSON shows it only where it matters.</summary>
    public bool? ExactCase { get; set; }
}
