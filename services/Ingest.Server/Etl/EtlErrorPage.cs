namespace Ingest.Server.Etl;

/// <summary>One page of a task's errors; <paramref name="Next"/> is the <c>start</c> of the next page, null at the end.</summary>
public sealed record EtlErrorPage(IReadOnlyList<EtlError> Items, long? Next);
