namespace Ingest.Benchmarks.Ingestion;

/// <summary>A cell of the ingestion table: a measurement, or the error that stopped it.</summary>
internal sealed record IngestionResult(string Workload, string System, IngestionMeasurement? Measurement, Exception? Error);
