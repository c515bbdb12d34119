namespace Ingest.Query.Execution;

/// <summary>
/// How a query runs, for <c>GET /queries/explain</c>: the source (<c>index 'Orders/ByTotal'</c> or
/// <c>collection/Orders</c>), the filter as a tree of steps, the order and the output. Serialises as plain JSON.
/// </summary>
public sealed record QueryPlan(string Source, IReadOnlyList<QueryPlanStep> Steps);
