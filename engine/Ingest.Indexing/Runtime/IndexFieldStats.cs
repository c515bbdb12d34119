namespace Ingest.Indexing.Runtime;

/// <summary>
/// One field's counters: <paramref name="WrongTypeCount"/> values skipped for having the wrong JSON type since the
/// index was built (every indexed version of a document counts); <paramref name="NullCount"/> documents in the index
/// whose field is null or missing now.
/// </summary>
public sealed record IndexFieldStats(string Name, long WrongTypeCount, long NullCount);
