using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>
/// <c>a and b and not c</c>: the positive operands intersected smallest first (each evaluated once, then ordered by
/// size), then the negated operands subtracted. With no positive operand the base is every entry.
/// </summary>
internal sealed class AndFilterNode(IReadOnlyList<FilterNode> positives, IReadOnlyList<FilterNode> negatives) : FilterNode
{
    public IReadOnlyList<FilterNode> Positives => positives;

    public IReadOnlyList<FilterNode> Negatives => negatives;

    public override void Evaluate(IndexReader reader, List<long> result, CancellationToken ct)
    {
        var lists = new List<long>[positives.Count];
        var work = EntryListPool.Rent();
        try
        {
            if (positives.Count == 0)
            {
                reader.AllEntries(result);
            }
            else
            {
                for (var i = 0; i < lists.Length; i++)
                {
                    ct.ThrowIfCancellationRequested();
                    lists[i] = EntryListPool.Rent();
                    positives[i].Evaluate(reader, lists[i], ct);
                }

                Array.Sort(lists, static (x, y) => x.Count.CompareTo(y.Count));
                result.AddRange(lists[0]);
                for (var i = 1; i < lists.Length && result.Count > 0; i++)
                {
                    ct.ThrowIfCancellationRequested();
                    EntrySets.Intersect(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(result), System.Runtime.InteropServices.CollectionsMarshal.AsSpan(lists[i]), work);
                    Swap(result, work);
                }
            }

            foreach (var negative in negatives)
            {
                if (result.Count == 0)
                {
                    break;
                }

                ct.ThrowIfCancellationRequested();
                var excluded = EntryListPool.Rent();
                try
                {
                    negative.Evaluate(reader, excluded, ct);
                    EntrySets.Difference(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(result), System.Runtime.InteropServices.CollectionsMarshal.AsSpan(excluded), work);
                    Swap(result, work);
                }
                finally
                {
                    EntryListPool.Return(excluded);
                }
            }
        }
        finally
        {
            foreach (var list in lists)
            {
                EntryListPool.Return(list);
            }

            EntryListPool.Return(work);
        }
    }

    public override QueryPlanStep Describe(IndexReader? reader, CancellationToken ct)
    {
        var inputs = new List<QueryPlanStep>();
        foreach (var positive in positives)
        {
            inputs.Add(positive.Describe(reader, ct));
        }

        if (reader != null)
        {
            inputs.Sort(static (x, y) => Nullable.Compare(x.Entries, y.Entries));
        }

        var intersect = positives.Count == 0
            ? new QueryPlanStep("all-entries", "every entry of the index", reader?.EntryCount, [])
            : positives.Count == 1 ? inputs[0] : new QueryPlanStep("intersect", "smallest first; galloping when sizes differ 32x or more", null, inputs);
        if (negatives.Count == 0)
        {
            return intersect with { Entries = SizeIn(reader, ct) };
        }

        var steps = new List<QueryPlanStep> { intersect };
        foreach (var negative in negatives)
        {
            steps.Add(negative.Describe(reader, ct));
        }

        return new QueryPlanStep("difference", "the first input minus the others (not)", SizeIn(reader, ct), steps);
    }

    /// <summary>Moves <paramref name="from"/>'s contents into <paramref name="into"/> without copying element by element twice.</summary>
    private static void Swap(List<long> into, List<long> from)
    {
        into.Clear();
        into.AddRange(from);
        from.Clear();
    }
}
