using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Runtime;

/// <summary>What an index is, how far it got and what its loop counted.</summary>
/// <param name="Definition">The definition queries use (the swapped-in build).</param>
/// <param name="State">Indexing, rebuilding side by side, or errored.</param>
/// <param name="Error">For an errored index, the storage error, naming the file and offset.</param>
/// <param name="LastIndexedEtag">The etag of the last change the index committed.</param>
/// <param name="CollectionsLastEtag">The highest last etag over the definition's collections.</param>
/// <param name="IsStale"><paramref name="LastIndexedEtag"/> is below <paramref name="CollectionsLastEtag"/>.</param>
/// <param name="EntryCount">Documents in the index.</param>
/// <param name="BatchesClosed">Batches committed since the index was opened.</param>
/// <param name="LastBatchDocuments">Changes in the last committed batch.</param>
/// <param name="PeakBatchMemoryBytes">The most memory a batch's buffers held since the index was opened.</param>
/// <param name="LastBatchAt">When the last batch committed (UTC), if one did since opening.</param>
/// <param name="Fields">Per field counters, in definition order.</param>
/// <param name="PendingDefinition">The definition being built side by side, if any.</param>
/// <param name="PendingLastIndexedEtag">How far the side-by-side build got.</param>
public sealed record IndexStatus(
    IndexDefinition Definition,
    IndexState State,
    string? Error,
    long LastIndexedEtag,
    long CollectionsLastEtag,
    bool IsStale,
    long EntryCount,
    long BatchesClosed,
    long LastBatchDocuments,
    long PeakBatchMemoryBytes,
    DateTime? LastBatchAt,
    IReadOnlyList<IndexFieldStats> Fields,
    IndexDefinition? PendingDefinition,
    long? PendingLastIndexedEtag)
{
    /// <summary>Why the index is rebuilding when it is not a changed definition or a reset: its storage format is older than this build's.</summary>
    public string? RebuildReason { get; init; }
}
