using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary><c>a or b or c</c>: the operands' lists merged in one k-way union.</summary>
internal sealed class OrFilterNode(IReadOnlyList<FilterNode> operands) : FilterNode
{
    public override void Evaluate(IndexReader reader, List<long> result, CancellationToken ct)
    {
        var lists = new List<long>[operands.Count];
        try
        {
            for (var i = 0; i < lists.Length; i++)
            {
                ct.ThrowIfCancellationRequested();
                lists[i] = EntryListPool.Rent();
                operands[i].Evaluate(reader, lists[i], ct);
            }

            EntrySets.Union(lists, result, ct);
        }
        finally
        {
            foreach (var list in lists)
            {
                EntryListPool.Return(list);
            }
        }
    }

    public override QueryPlanStep Describe(IndexReader? reader, CancellationToken ct)
    {
        var inputs = new List<QueryPlanStep>();
        foreach (var operand in operands)
        {
            inputs.Add(operand.Describe(reader, ct));
        }

        return new QueryPlanStep("union", "k-way merge", SizeIn(reader, ct), inputs);
    }
}
