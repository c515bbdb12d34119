namespace Ingest.Query.AutoIndexes;

/// <summary>
/// The index chosen to answer a <c>from Collection</c> query: a static index that covers its fields, or an automatic one
/// (<paramref name="IsAutomatic"/>), which <paramref name="Created"/> says was made (or extended) for this query.
/// </summary>
public sealed record AnsweringIndex(string Name, bool IsAutomatic, bool Created);
