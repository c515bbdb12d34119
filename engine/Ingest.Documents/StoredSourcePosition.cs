namespace Ingest.Documents;

/// <summary>A source position as stored, with the store's last etag when it was written.</summary>
/// <param name="Position">The position.</param>
/// <param name="Etag">The store's last etag when the batch that stored it committed.</param>
/// <param name="Updated">When it was stored (UTC).</param>
public readonly record struct StoredSourcePosition(SourcePosition Position, long Etag, DateTime Updated);
