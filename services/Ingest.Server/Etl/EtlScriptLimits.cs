namespace Ingest.Server.Etl;

/// <summary>What one run of a transform (one document) may take.</summary>
internal readonly record struct EtlScriptLimits(TimeSpan Timeout, long MemoryBytes);
