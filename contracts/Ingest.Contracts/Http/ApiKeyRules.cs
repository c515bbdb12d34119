namespace Ingest.Contracts.Http;

/// <summary>
/// What an API key's name and scopes may be, shared by the server (which checks <c>Ingest:ApiKeys</c>) and the
/// CLI (which prints those settings for <c>ingest keys new</c>), so the two never disagree.
/// </summary>
public static class ApiKeyRules
{
    public const int MaxNameLength = 64;

    public const string ReadScope = "read";
    public const string WriteScope = "write";
    public const string AdminScope = "admin";

    /// <summary>The scope names as a message lists them.</summary>
    public const string AllScopes = "read, write, admin";

    /// <summary>1 to <see cref="MaxNameLength"/> letters, digits, '.', '-' and '_': a name logs and 403 answers show as it is.</summary>
    public static bool IsValidName(string? name)
    {
        if (name is not { Length: > 0 and <= MaxNameLength })
        {
            return false;
        }

        foreach (var c in name)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('.' or '-' or '_'))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Whether <paramref name="name"/> is one of the three scopes (case-insensitive).</summary>
    public static bool IsScope(string name) =>
        string.Equals(name, ReadScope, StringComparison.OrdinalIgnoreCase)
        || string.Equals(name, WriteScope, StringComparison.OrdinalIgnoreCase)
        || string.Equals(name, AdminScope, StringComparison.OrdinalIgnoreCase);
}
