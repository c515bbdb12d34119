namespace Ingest.Contracts.Http;

/// <summary>The answer to <c>POST /dead-letters/{id}/replay</c>: what the replayed message did.</summary>
/// <param name="Id">The document id the message mapped to.</param>
/// <param name="Collection">The collection it mapped to.</param>
/// <param name="Etag">The etag of the put or delete; null for a delete of a document that did not exist.</param>
/// <param name="Operation">"put" or "delete".</param>
public sealed record ReplayResponse(string Id, string Collection, long? Etag, string Operation);
