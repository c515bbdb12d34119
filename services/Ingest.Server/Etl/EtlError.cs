namespace Ingest.Server.Etl;

/// <summary>A document an ETL task could not transform: kept until it is retried successfully or the task is deleted.</summary>
/// <param name="Id">Numbers the task's errors, in order.</param>
/// <param name="DocumentId">The document.</param>
/// <param name="Collection">Its collection.</param>
/// <param name="Etag">The change that failed.</param>
/// <param name="Error">What the script did.</param>
/// <param name="Time">When (UTC) it last failed.</param>
/// <param name="Attempts">How many times it failed.</param>
public sealed record EtlError(long Id, string DocumentId, string Collection, long Etag, string Error, DateTime Time, int Attempts);
