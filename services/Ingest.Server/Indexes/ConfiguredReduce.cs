namespace Ingest.Server.Indexes;

/// <summary>The reduce of a map-reduce index declared in configuration (<c>Ingest:Indexes:N:Reduce</c>).</summary>
public sealed class ConfiguredReduce
{
    public List<ConfiguredGroupKey> GroupBy { get; set; } = [];

    public List<ConfiguredAggregate> Aggregates { get; set; } = [];
}
