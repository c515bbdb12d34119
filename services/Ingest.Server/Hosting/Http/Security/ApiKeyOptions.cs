namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// One configured API key, bound from <c>Ingest:ApiKeys:N</c>: its name (what logs show), its scopes, and
/// either its <see cref="KeyHash"/> (what <c>ingest keys new</c> prints; the production form) or the plain
/// <see cref="Key"/> (development and tests).
/// </summary>
public sealed class ApiKeyOptions
{
    /// <summary>Shown in logs and 403s in place of the key; letters, digits, '.', '-' and '_'.</summary>
    public string? Name { get; set; }

    /// <summary><c>read</c>, <c>write</c> and/or <c>admin</c>; an entry may also list several separated by commas.</summary>
    public List<string> Scopes { get; } = [];

    /// <summary>The key itself, at least 16 characters. Prefer <see cref="KeyHash"/> outside development.</summary>
    public string? Key { get; set; }

    /// <summary><c>sha256:</c> and the 64 hex digits of the key's SHA-256, as <c>ingest keys new</c> prints it.</summary>
    public string? KeyHash { get; set; }
}
