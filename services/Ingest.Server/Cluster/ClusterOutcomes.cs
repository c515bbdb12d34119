using System.Collections.Concurrent;

namespace Ingest.Server.Cluster;

/// <summary>
/// What became of this node's own records that can fail at apply time (a conditional write whose version no longer
/// matches, an admin change a handler refused), kept by position until the HTTP request that produced the record
/// reads it. Records without an outcome applied as asked. Bounded: a request that gave up waiting leaves its entry,
/// and the oldest entries go once there are too many.
/// </summary>
internal sealed class ClusterOutcomes
{
    private const int MaxEntries = 10_000;

    private readonly ConcurrentDictionary<ClusterPosition, string> _failures = new();
    private readonly ConcurrentQueue<ClusterPosition> _order = new();

    /// <summary>Records that the record at <paramref name="position"/> was not applied, and why.</summary>
    public void RecordFailure(ClusterPosition position, string reason)
    {
        if (_failures.TryAdd(position, reason))
        {
            _order.Enqueue(position);
            while (_order.Count > MaxEntries && _order.TryDequeue(out var oldest))
            {
                _failures.TryRemove(oldest, out _);
            }
        }
    }

    /// <summary>Takes the failure recorded for <paramref name="position"/>; null when it applied as asked.</summary>
    public string? TakeFailure(ClusterPosition position) => _failures.TryRemove(position, out var reason) ? reason : null;
}
