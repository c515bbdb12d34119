namespace Ingest.Indexing.Reduce;

/// <summary>
/// One group key of a map-reduce index: the values of the index field <paramref name="Field"/>, or with
/// <paramref name="Interval"/> (<c>5m</c>, <c>1h</c>, <c>1d</c>, <c>1w</c>; units ms, s, m, h, d, w) the UTC time
/// bucket a datetime field's value falls in. <paramref name="Name"/> is the column queries see.
/// </summary>
public sealed record GroupKeyDefinition(string Name, string Field, string? Interval = null);
