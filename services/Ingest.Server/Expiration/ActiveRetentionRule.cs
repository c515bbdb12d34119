using Ingest.Documents.Expiration;

namespace Ingest.Server.Expiration;

/// <summary>A rule in force and where it comes from ("configuration" or "http").</summary>
internal sealed record ActiveRetentionRule(ExpirationRule Rule, string Source);
