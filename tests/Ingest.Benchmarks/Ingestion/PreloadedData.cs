namespace Ingest.Benchmarks.Ingestion;

/// <summary>What was put into a topic or queue before measuring: the documents, their JSON bytes, and how long it took.</summary>
internal sealed record PreloadedData(string Destination, long Documents, long Bytes, TimeSpan Elapsed);
