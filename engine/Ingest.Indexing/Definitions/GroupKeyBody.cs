namespace Ingest.Indexing.Definitions;

/// <summary>A group key as JSON carries it; <c>name</c> defaults to the field's name when there is no interval.</summary>
internal sealed class GroupKeyBody
{
    public string? Name { get; set; }

    public string? Field { get; set; }

    public string? Interval { get; set; }
}
