namespace Ingest.Query.Execution;

/// <summary>One order key of the last row of a page: missing, a column's raw 8-byte value, or term / folded id bytes.</summary>
internal sealed record ContinuationKey(bool Missing, ulong Value, byte[] Bytes);
