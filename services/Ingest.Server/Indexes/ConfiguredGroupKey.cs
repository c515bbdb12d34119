namespace Ingest.Server.Indexes;

/// <summary>A group key of a configured map-reduce index (<c>Ingest:Indexes:N:Reduce:GroupBy:M</c>).</summary>
public sealed class ConfiguredGroupKey
{
    /// <summary>The column's name; the field's name when left out and there is no interval.</summary>
    public string? Name { get; set; }

    public string? Field { get; set; }

    /// <summary>A time bucket of a datetime field: 5m, 1h, 1d, 1w.</summary>
    public string? Interval { get; set; }
}
