namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// Who sent a request: the configured name of the key it carried and that key's scopes. A server
/// without keys treats every caller as <see cref="Anonymous"/>, which may do everything.
/// </summary>
public sealed record ApiCaller(string Name, ApiScopes Scopes)
{
    /// <summary>The caller of a server that has no API keys configured.</summary>
    public static ApiCaller Anonymous { get; } = new("anonymous", ApiScopes.Admin);

    /// <summary>Whether this caller holds every scope in <paramref name="required"/>.</summary>
    public bool Has(ApiScopes required) => (Scopes & required) == required;
}
