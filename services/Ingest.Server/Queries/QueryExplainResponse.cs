using Ingest.Query.Execution;

namespace Ingest.Server.Queries;

/// <summary><c>GET /queries/explain</c>: the index that would answer the query and how the query runs on it.</summary>
internal sealed record QueryExplainResponse(string IndexName, QueryPlan Plan);
