namespace Ingest.Contracts.Http;

/// <summary>The answer to <c>PUT /docs/{id}</c>.</summary>
/// <param name="Id">The id as stored.</param>
/// <param name="Collection">The collection it went to.</param>
/// <param name="Etag">Its new etag.</param>
public sealed record DocumentWriteResponse(string Id, string Collection, long Etag);
