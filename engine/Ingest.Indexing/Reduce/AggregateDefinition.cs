namespace Ingest.Indexing.Reduce;

/// <summary>One aggregate of a map-reduce index, named <paramref name="Name"/> in queries; <paramref name="Field"/> is an index field (optional for count).</summary>
public sealed record AggregateDefinition(string Name, AggregateKind Kind, string? Field = null);
