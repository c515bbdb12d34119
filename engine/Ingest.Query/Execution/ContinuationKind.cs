namespace Ingest.Query.Execution;

internal enum ContinuationKind : byte
{
    /// <summary>Index results: keyset after an entry (and its order keys).</summary>
    Index = 0,

    /// <summary>A collection scan: after an etag.</summary>
    Collection = 1,
}
