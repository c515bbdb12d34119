namespace Ingest.Contracts.Http;

/// <summary>A collection's retention and what the expiration task did to it.</summary>
/// <param name="Name">The collection.</param>
/// <param name="Keep">How long its documents are kept (a TimeSpan, e.g. "30.00:00:00"), or null without a rule.</param>
/// <param name="Field">The top-level date property the retention counts from, or null for the time of writing.</param>
/// <param name="Source">"configuration" or "http": where the rule comes from; null without a rule.</param>
/// <param name="Restamping">True while documents already stored are being brought under a changed rule.</param>
/// <param name="DocumentsExpired">Documents of the collection the task deleted since the server started.</param>
public sealed record ExpirationCollectionEntry(string Name, string? Keep, string? Field, string? Source, bool Restamping, long DocumentsExpired);
