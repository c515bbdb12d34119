namespace Ingest.Documents.Expiration;

/// <summary>A retention rule as the store applies it, and whether its collection's stored documents are still being re-stamped.</summary>
/// <param name="Rule">The rule; <see cref="ExpirationRule.Keep"/> is zero for a removed rule still being taken off stored documents.</param>
/// <param name="Restamping">True while stored documents of the collection are being brought under the rule.</param>
/// <param name="RestampedThroughEtag">How far that walk has got (the collection's documents are visited in etag order).</param>
public sealed record ExpirationRuleProgress(ExpirationRule Rule, bool Restamping, long RestampedThroughEtag);
