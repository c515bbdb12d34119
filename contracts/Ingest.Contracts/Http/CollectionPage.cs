namespace Ingest.Contracts.Http;

/// <summary>One page of a collection in etag order (<c>GET /docs?collection=</c>).</summary>
/// <param name="Collection">The collection asked for.</param>
/// <param name="Items">The documents.</param>
/// <param name="Next">The etag to pass as <c>start</c> for the next page; null at the end.</param>
public sealed record CollectionPage(string Collection, IReadOnlyList<DocumentItem> Items, long? Next);
