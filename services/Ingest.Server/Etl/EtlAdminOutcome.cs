namespace Ingest.Server.Etl;

/// <summary>What an administrative request on a task did.</summary>
internal enum EtlAdminOutcome
{
    Done,
    NotFound,
    FromConfiguration,
}
