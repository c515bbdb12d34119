namespace Ingest.Contracts.Http;

/// <summary>An index in <c>/health</c>.</summary>
/// <param name="Name">The index's name.</param>
/// <param name="State">"indexing", "rebuilding" or "errored" (an errored index makes <c>/health</c> answer 503).</param>
/// <param name="Error">Why an errored index stopped (its damaged file and offset); null otherwise.</param>
public sealed record IndexHealth(string Name, string State, string? Error);
