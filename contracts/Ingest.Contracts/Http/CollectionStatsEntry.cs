namespace Ingest.Contracts.Http;

/// <summary>A collection's counters.</summary>
/// <param name="Name">The collection, in the casing it was first written with.</param>
/// <param name="Count">Documents in it.</param>
/// <param name="BodyBytes">Total size of their bodies.</param>
/// <param name="LastEtag">The etag of its last put or delete.</param>
public sealed record CollectionStatsEntry(string Name, long Count, long BodyBytes, long LastEtag);
