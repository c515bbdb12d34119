namespace Ingest.Contracts.Http;

/// <summary>The reduce of a map-reduce index: its entries grouped by <paramref name="GroupBy"/>, with <paramref name="Aggregates"/> per group.</summary>
/// <param name="GroupBy">The group keys, in order (may be empty: one group of every document).</param>
/// <param name="Aggregates">The aggregates kept per group, in order.</param>
public sealed record IndexReduceEntry(IReadOnlyList<IndexGroupKeyEntry> GroupBy, IReadOnlyList<IndexAggregateEntry> Aggregates);
