namespace Ingest.Query.Reduce;

/// <summary>One group of a map-reduce index as a query reads it: its columns' values (keys, then aggregates) and its group key bytes (the tie-breaker and the keyset).</summary>
internal sealed record GroupRow(object?[] Values, byte[] GroupKey);
