namespace Ingest.Contracts.Http;

/// <summary>A document in a page of <c>GET /docs</c>.</summary>
/// <param name="Id">The id in the casing it was written with.</param>
/// <param name="Collection">The collection in the casing it was written with.</param>
/// <param name="Etag">The etag of its last write.</param>
/// <param name="LastModified">When it was written (UTC).</param>
/// <param name="Document">The JSON body, embedded as is.</param>
public sealed record DocumentItem(string Id, string Collection, long Etag, DateTime LastModified, RawJson Document);
