namespace Ingest.Query.Execution;

/// <summary>One property of the result objects: its name and what it holds.</summary>
public sealed record QueryColumn(string Name, QueryColumnType Type);
