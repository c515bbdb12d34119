using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// Consecutive generated orders: their JSON (what Ingest stores), and the values the baselines load in columns, parsed
/// once for all of them. <paramref name="First"/> is the first order's position in the whole set (a baseline's row id).
/// </summary>
internal sealed record OrderChunk(int First, OrderDataset Data, QueryOrder[] Orders)
{
    public static OrderChunk Parse(int first, OrderDataset data)
    {
        var orders = new QueryOrder[data.Count];
        for (var i = 0; i < orders.Length; i++)
        {
            orders[i] = QueryOrder.Read(data.Bodies[i]);
        }

        return new OrderChunk(first, data, orders);
    }
}
