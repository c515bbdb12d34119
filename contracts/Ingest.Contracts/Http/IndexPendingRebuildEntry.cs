namespace Ingest.Contracts.Http;

/// <summary>A build under way side by side (a changed definition or a reset); queries use the current build until it catches up and is swapped in.</summary>
/// <param name="Definition">The definition being built.</param>
/// <param name="LastIndexedEtag">How far the build got.</param>
public sealed record IndexPendingRebuildEntry(IndexDefinitionEntry Definition, long LastIndexedEtag);
