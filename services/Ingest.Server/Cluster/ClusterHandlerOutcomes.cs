using System.Collections.Concurrent;

namespace Ingest.Server.Cluster;

/// <summary>
/// What an <see cref="IClusterRecordHandler"/> did with this node's own records, kept by position until the HTTP request
/// that produced the record takes it to build its answer (the same answer single mode gives). Records other nodes
/// produced keep nothing: nobody here waits for them. Bounded, as <see cref="ClusterOutcomes"/> is: a request that gave
/// up waiting leaves its entry behind, and past the bound new outcomes are not kept (the request then answers from
/// this node's state instead).
/// </summary>
internal sealed class ClusterHandlerOutcomes<T>(ClusterOptions options)
{
    private const int MaxEntries = 10_000;

    private readonly ConcurrentDictionary<ClusterPosition, T> _outcomes = new();

    /// <summary>Keeps <paramref name="outcome"/> when <paramref name="record"/> was produced by this node.</summary>
    public void Keep(ClusterRecord record, ClusterPosition position, T outcome)
    {
        if (ClusterRecordHeaders.Text(record, ClusterHeaders.Node) == options.Node && _outcomes.Count < MaxEntries)
        {
            _outcomes[position] = outcome;
        }
    }

    /// <summary>Takes the outcome of this node's record at <paramref name="position"/>; false when none was kept.</summary>
    public bool TryTake(ClusterPosition position, out T outcome) => _outcomes.TryRemove(position, out outcome!);
}
