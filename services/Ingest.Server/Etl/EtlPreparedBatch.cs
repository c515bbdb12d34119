namespace Ingest.Server.Etl;

/// <summary>The messages for a batch, and the documents whose transform failed.</summary>
internal sealed record EtlPreparedBatch(IReadOnlyList<EtlMessage> Messages, IReadOnlyList<(string DocumentId, string Collection, long Etag, string Error)> Failures);
