namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// What an API key may do. <see cref="Admin"/> includes the other two, so the single
/// <c>Ingest:ApiKey</c> of earlier versions, which is an admin key, still opens everything.
/// </summary>
[Flags]
public enum ApiScopes
{
    None = 0,

    /// <summary>Documents, queries, Grafana, stats and health: everything that only reads.</summary>
    Read = 1,

    /// <summary>Document writes and deletes, dead-letter replays and deletes.</summary>
    Write = 2,

    /// <summary>Indexes, ETL tasks, sources, saved Grafana queries, backup and verify; implies read and write.</summary>
    Admin = 4 | Read | Write,
}
