using Ingest.Query.Execution;

namespace Ingest.Query.Reduce;

/// <summary>
/// A column of a map-reduce index's rows: group key <paramref name="Index"/> (<paramref name="IsKey"/>) or aggregate
/// <paramref name="Index"/>; <paramref name="FoldsCase"/> for a keyword key whose values are stored lower-cased, so
/// literals compared with it are folded the same way.
/// </summary>
/// <remarks><paramref name="ZeroWhenNone"/>: a sum, which is 0 over no values, as the query language's sum() is.</remarks>
internal sealed record GroupColumn(string Name, bool IsKey, int Index, QueryColumnType Type, bool FoldsCase, bool ZeroWhenNone = false);
