namespace Ingest.Indexing.Definitions;

/// <summary>
/// A reduce as JSON carries it: <c>{"groupBy":[{"name":"Hour","field":"OrderedAt","interval":"1h"}],
/// "aggregates":[{"name":"Revenue","function":"sum","field":"Total"}]}</c>; everything optional so the validator reports each problem.
/// </summary>
internal sealed class ReduceBody
{
    public List<GroupKeyBody?>? GroupBy { get; set; }

    public List<AggregateBody?>? Aggregates { get; set; }
}
