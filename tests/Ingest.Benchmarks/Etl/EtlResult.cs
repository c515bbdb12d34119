namespace Ingest.Benchmarks.Etl;

/// <summary>One cell of the table: a workload run by a system, or why it failed.</summary>
internal sealed record EtlResult(string Workload, string System, EtlMeasurement? Measurement, Exception? Error);
