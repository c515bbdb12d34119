namespace Ingest.Query.Aggregation;

/// <summary>Orders group slots by the query's <c>order by</c> items, then by their keys ascending.</summary>
internal sealed class GroupRowComparer : IComparer<int>
{
    private readonly Accumulators _accumulators;
    private readonly IReadOnlyList<GroupOrder> _orders;
    private readonly GroupExecution _groups;

    public GroupRowComparer(Accumulators accumulators, IReadOnlyList<GroupOrder> orders, GroupExecution groups)
    {
        _accumulators = accumulators;
        _orders = orders;
        _groups = groups;
    }

    public int Compare(int x, int y)
    {
        for (var i = 0; i < _orders.Count; i++)
        {
            var order = _orders[i];
            var result = order.Aggregate >= 0
                ? _accumulators.Compare(order.Aggregate, x, y, order.Descending)
                : _groups.OrdinalOf(x, order.Key).CompareTo(_groups.OrdinalOf(y, order.Key)) * (order.Descending ? -1 : 1);
            if (result != 0)
            {
                return result;
            }
        }

        return _accumulators.Combination[x].CompareTo(_accumulators.Combination[y]);
    }
}
