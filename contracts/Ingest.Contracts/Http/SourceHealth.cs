namespace Ingest.Contracts.Http;

/// <summary>A source's connection in <c>/health</c>.</summary>
/// <param name="Name">The source's name.</param>
/// <param name="Kind">"kafka" or "rabbitmq".</param>
/// <param name="Connected">Whether it has a working broker connection.</param>
/// <param name="Error">Its latest problem, null when all is well.</param>
public sealed record SourceHealth(string Name, string Kind, bool Connected, string? Error);
