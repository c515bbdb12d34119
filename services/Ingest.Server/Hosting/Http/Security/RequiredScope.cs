namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// Endpoint metadata: the scope a key needs for this endpoint. An endpoint without it needs
/// <see cref="ApiScopes.Admin"/> (closed unless said otherwise); <see cref="OpenEndpoint"/> marks the few
/// that need no key at all.
/// </summary>
public sealed record RequiredScope(ApiScopes Scope);
