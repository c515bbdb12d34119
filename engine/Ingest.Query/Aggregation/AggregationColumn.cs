namespace Ingest.Query.Aggregation;

/// <summary>One property of every aggregation row, in the order rows write them.</summary>
public sealed record AggregationColumn(string Name, AggregationColumnType Type);
