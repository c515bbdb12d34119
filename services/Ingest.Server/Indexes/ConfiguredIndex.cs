namespace Ingest.Server.Indexes;

/// <summary>An index declared in configuration (<c>Ingest:Indexes:N</c>); applied at start as if PUT over HTTP.</summary>
public sealed class ConfiguredIndex
{
    public string? Name { get; set; }

    public List<string> Collections { get; set; } = [];

    public List<ConfiguredIndexField> Fields { get; set; } = [];

    /// <summary>Set for a map-reduce index.</summary>
    public ConfiguredReduce? Reduce { get; set; }
}
