namespace Ingest.Server.Indexes;

/// <summary>A field of an index declared in configuration (<c>Ingest:Indexes:N:Fields:M</c>).</summary>
public sealed class ConfiguredIndexField
{
    public string? Name { get; set; }

    public string? Path { get; set; }

    /// <summary>keyword, text, number, datetime or bool (any case).</summary>
    public string? Type { get; set; }

    public bool ExactCase { get; set; }
}
