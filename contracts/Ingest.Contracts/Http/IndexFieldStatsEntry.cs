namespace Ingest.Contracts.Http;

/// <summary>What the index met in one field.</summary>
/// <param name="Name">The field's name.</param>
/// <param name="WrongType">Values skipped because they had the wrong JSON type for the field (never an error that stops the index).</param>
/// <param name="Nulls">Documents where the value is null or missing (indexed as null).</param>
public sealed record IndexFieldStatsEntry(string Name, long WrongType, long Nulls);
