using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>Changes read from the feed for one send: the task's documents and tombstones, and the last etag read (filtered-out changes included).</summary>
internal sealed record EtlBatch(IReadOnlyList<Document> Changes, long LastEtag);
