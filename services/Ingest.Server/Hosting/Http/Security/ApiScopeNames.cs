using Ingest.Contracts.Http;

namespace Ingest.Server.Hosting.Http.Security;

/// <summary>The names scopes have in configuration, the CLI and 403 answers.</summary>
public static class ApiScopeNames
{
    public const string Read = ApiKeyRules.ReadScope;
    public const string Write = ApiKeyRules.WriteScope;
    public const string Admin = ApiKeyRules.AdminScope;
    public const string All = ApiKeyRules.AllScopes;

    public static bool TryParse(string text, out ApiScopes scope)
    {
        scope = text.ToLowerInvariant() switch
        {
            Read => ApiScopes.Read,
            Write => ApiScopes.Write,
            Admin => ApiScopes.Admin,
            _ => ApiScopes.None,
        };
        return scope != ApiScopes.None;
    }

    /// <summary>The one name for a required scope: the highest it includes.</summary>
    public static string Of(ApiScopes required) =>
        (required & ApiScopes.Admin) == ApiScopes.Admin ? Admin : (required & ApiScopes.Write) != 0 ? Write : Read;

    /// <summary>A key's scopes as configured, e.g. "read, write"; admin alone for an admin key.</summary>
    public static string Describe(ApiScopes scopes)
    {
        if ((scopes & ApiScopes.Admin) == ApiScopes.Admin)
        {
            return Admin;
        }

        return (scopes & (ApiScopes.Read | ApiScopes.Write)) switch
        {
            ApiScopes.Read | ApiScopes.Write => Read + ", " + Write,
            ApiScopes.Read => Read,
            ApiScopes.Write => Write,
            _ => "none",
        };
    }
}
