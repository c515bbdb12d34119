namespace Ingest.Contracts.Http;

/// <summary>One page of dead letters in id order (<c>GET /dead-letters</c>).</summary>
/// <param name="Items">The dead letters.</param>
/// <param name="Next">The id to pass as <c>start</c> for the next page; null at the end.</param>
public sealed record DeadLetterPage(IReadOnlyList<DeadLetterEntry> Items, long? Next);
