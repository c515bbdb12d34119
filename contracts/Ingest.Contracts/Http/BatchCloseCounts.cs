namespace Ingest.Contracts.Http;

/// <summary>How many batches closed for each reason.</summary>
/// <param name="Count">Reached the message count limit.</param>
/// <param name="Bytes">Reached the byte limit.</param>
/// <param name="Delay">Their first item waited the longest allowed delay.</param>
/// <param name="Flush">Closed on request (drain, stop).</param>
public sealed record BatchCloseCounts(long Count, long Bytes, long Delay, long Flush);
