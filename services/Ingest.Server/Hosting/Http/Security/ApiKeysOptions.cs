namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// Every key the server accepts: the named, scoped keys of <c>Ingest:ApiKeys</c>, and the single
/// <c>Ingest:ApiKey</c> of earlier versions, which stays an admin key.
/// </summary>
public sealed class ApiKeysOptions
{
    public const string SectionName = "Ingest:ApiKeys";
    public const string LegacySetting = "Ingest:ApiKey";

    /// <summary>The name a request made with <c>Ingest:ApiKey</c> is logged under.</summary>
    public const string LegacyKeyName = "Ingest:ApiKey";

    public const int MinimumKeyLength = 16;

    public List<ApiKeyOptions> Keys { get; } = [];

    /// <summary><c>Ingest:ApiKey</c>; its length is checked with the other <c>Ingest</c> settings.</summary>
    public string? LegacyKey { get; set; }
}
