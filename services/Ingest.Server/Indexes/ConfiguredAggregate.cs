namespace Ingest.Server.Indexes;

/// <summary>An aggregate of a configured map-reduce index (<c>Ingest:Indexes:N:Reduce:Aggregates:M</c>).</summary>
public sealed class ConfiguredAggregate
{
    public string? Name { get; set; }

    /// <summary>count, sum, min, max, avg or countDistinct (any case).</summary>
    public string? Function { get; set; }

    /// <summary>An index field; optional for count.</summary>
    public string? Field { get; set; }
}
