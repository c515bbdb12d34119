namespace Ingest.Documents.Expiration;

/// <summary>
/// A collection's retention: its documents expire <paramref name="Keep"/> after the date in the top-level
/// property <paramref name="Field"/> (an ISO 8601 string), or after they were written when there is no
/// field (or a document lacks it or holds no date there). A document's own <c>@metadata.@expires</c>
/// still applies when it comes first.
/// </summary>
/// <param name="Collection">The collection (any casing).</param>
/// <param name="Keep">How long documents are kept; positive.</param>
/// <param name="Field">A top-level date property, or null for the time of writing.</param>
public sealed record ExpirationRule(string Collection, TimeSpan Keep, string? Field = null);
