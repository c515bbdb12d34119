namespace Ingest.Contracts.Http;

/// <summary>An ETL task in <c>/health</c>.</summary>
/// <param name="Name">The task's name.</param>
/// <param name="State">"running", "retrying" (its broker fails; the same batch is sent again with backoff), "errored" (the store failed and the task stopped) or "stopped". Retrying and errored make <c>/health</c> answer 503.</param>
/// <param name="Error">The last delivery failure while retrying, or why an errored task stopped; null while running.</param>
public sealed record EtlTaskHealth(string Name, string State, string? Error);
