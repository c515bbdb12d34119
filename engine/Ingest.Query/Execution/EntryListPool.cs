using System.Collections.Concurrent;

namespace Ingest.Query.Execution;

/// <summary>
/// Reused id lists for filter evaluation (the IndexReader appends into <see cref="List{T}"/>): a query rents one per
/// filter step and returns it, so steady querying allocates no id arrays. Lists that grew past
/// <see cref="MaxRetainedCapacity"/> are dropped rather than pinned in memory.
/// </summary>
internal static class EntryListPool
{
    private const int MaxRetained = 64;
    private const int MaxRetainedCapacity = 4 * 1024 * 1024;
    private static readonly ConcurrentBag<List<long>> Lists = [];

    public static List<long> Rent() => Lists.TryTake(out var list) ? list : new List<long>(256);

    public static void Return(List<long>? list)
    {
        if (list == null || list.Capacity > MaxRetainedCapacity || Lists.Count >= MaxRetained)
        {
            return;
        }

        list.Clear();
        Lists.Add(list);
    }
}
