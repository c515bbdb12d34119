namespace Ingest.Query.Execution;

/// <summary>
/// One step of a <see cref="QueryPlan"/>: <paramref name="Operation"/> such as <c>lookup</c>, <c>range</c>, <c>prefix</c>,
/// <c>exists</c>, <c>nulls</c>, <c>intersect</c>, <c>union</c>, <c>difference</c>, <c>all-entries</c>, <c>top-k</c>, <c>sort</c>,
/// <c>documents</c>, <c>projection</c>, <c>aggregate</c>; <paramref name="Detail"/> in words;
/// <paramref name="Entries"/> the step's size in the reader explained against (null without a reader).
/// </summary>
public sealed record QueryPlanStep(string Operation, string Detail, long? Entries, IReadOnlyList<QueryPlanStep> Inputs);
