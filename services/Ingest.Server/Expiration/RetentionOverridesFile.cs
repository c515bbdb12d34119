namespace Ingest.Server.Expiration;

/// <summary>
/// <c>expiration-rules.json</c> in the data directory: the rules set over HTTP (<paramref name="Set"/>) and the
/// collections whose configured rule was removed over HTTP (<paramref name="Removed"/>), which stay without one.
/// </summary>
internal sealed record RetentionOverridesFile(List<RetentionOverride> Set, List<string> Removed);
