namespace Ingest.Server.Expiration;

/// <summary>
/// <c>expiration-rules.json</c> in the data directory: the rules set and removed over HTTP, by folded collection
/// name. A removed entry (<see cref="RetentionOverride"/> with <see cref="Removed"/>) hides a configured rule.
/// </summary>
internal sealed record RetentionOverridesFile(List<RetentionOverride> Set, List<string> Removed);
