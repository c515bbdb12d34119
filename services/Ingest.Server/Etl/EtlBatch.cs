using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// Changes read from the feed for one send: the task's documents and tombstones, the last etag read
/// (filtered-out changes included), and the read buffer most of the documents' bodies are slices of
/// (null: none), which the task reuses once the batch is acknowledged, and in cluster mode the highest log
/// position per partition among its changes (null in single-node mode).
/// </summary>
internal sealed record EtlBatch(IReadOnlyList<Document> Changes, long LastEtag, byte[]? BodyBuffer, EtlLogProgress? Highest = null);
