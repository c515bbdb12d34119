namespace Ingest.Server.Expiration;

/// <summary>A collection's retention set over HTTP; in the overrides file, null in its place means "removed over HTTP".</summary>
/// <param name="Collection">The collection as the caller named it.</param>
/// <param name="Keep">How long documents are kept.</param>
/// <param name="Field">The top-level date property, or null for the time of writing.</param>
internal sealed record RetentionOverride(string Collection, TimeSpan Keep, string? Field);
