namespace Ingest.Documents;

/// <summary>A message that could not become a document, kept with its raw bytes for inspection and replay.</summary>
/// <param name="Id">The dead letter's id (increasing).</param>
/// <param name="Position">Where the message came from.</param>
/// <param name="Reason">Why it was rejected.</param>
/// <param name="Stored">When it was stored (UTC).</param>
/// <param name="Raw">The message bytes as received.</param>
public sealed record DeadLetter(long Id, SourcePosition Position, string Reason, DateTime Stored, ReadOnlyMemory<byte> Raw);
