namespace Ingest.Contracts.Http;

/// <summary>The answer to <c>POST /sources/{name}/reset</c>: the positions the source now resumes from.</summary>
/// <param name="Source">The source's name.</param>
/// <param name="To">"earliest", "latest", the time in UTC, or "offsets".</param>
/// <param name="Partitions">Each partition moved, in topic and partition order.</param>
public sealed record SourceResetResponse(string Source, string To, IReadOnlyList<PartitionResetEntry> Partitions);
