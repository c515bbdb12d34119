namespace Ingest.Contracts.Http;

/// <summary><c>GET /indexes/{name}</c>: the definition queries use, the index's state, progress and counters.</summary>
/// <param name="Name">The index's name.</param>
/// <param name="Definition">The definition of the build queries use.</param>
/// <param name="State">"indexing", "rebuilding" or "errored".</param>
/// <param name="Error">Why an errored index stopped (its damaged file and offset); null otherwise.</param>
/// <param name="Stale">The index has not yet indexed every change of its collections.</param>
/// <param name="LastIndexedEtag">The etag of the last change the index committed.</param>
/// <param name="CollectionsLastEtag">The highest last etag over its collections.</param>
/// <param name="Entries">Documents in the index.</param>
/// <param name="Batches">Its batches since the server opened it.</param>
/// <param name="Fields">Per field: wrongly typed values skipped, nulls.</param>
/// <param name="PendingRebuild">The build under way side by side, if any.</param>
public sealed record IndexDetailsResponse(
    string Name,
    IndexDefinitionEntry Definition,
    string State,
    string? Error,
    bool Stale,
    long LastIndexedEtag,
    long CollectionsLastEtag,
    long Entries,
    IndexBatchStatsEntry Batches,
    IReadOnlyList<IndexFieldStatsEntry> Fields,
    IndexPendingRebuildEntry? PendingRebuild);
