using Ingest.Query.Execution;

namespace Ingest.Server.Queries;

/// <summary>A column of a <see cref="ResultTable"/>: its name, what it holds, and whether it is an aggregate's value (not a key).</summary>
internal sealed record ResultColumn(string Name, QueryColumnType Type, bool IsValue);
