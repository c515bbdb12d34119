namespace Ingest.Query.Aggregation;

/// <summary>One <c>order by</c> item of a grouped query: an aggregate (index into the bound aggregates) or a group key.</summary>
internal readonly record struct GroupOrder(int Aggregate, int Key, bool Descending);
