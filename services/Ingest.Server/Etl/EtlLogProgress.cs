using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// An ETL task's progress in terms every node shares (cluster mode): per log partition (topic and partition of the
/// records that produced the document versions), the highest offset sent and acknowledged. Each node applies one
/// partition's records in offset order, so in any node's change feed a version of that partition at or below the
/// highest offset was sent already (or was replaced by a later version, which the feed shows instead). One owner
/// (the task's loop) changes it at a time; copies go to other threads.
/// </summary>
internal sealed class EtlLogProgress
{
    private readonly Dictionary<(string Topic, int Partition), long> _highest = [];

    public EtlLogProgress()
    {
    }

    public EtlLogProgress(IEnumerable<LogPosition> positions)
    {
        ArgumentNullException.ThrowIfNull(positions);
        foreach (var position in positions)
        {
            Advance(position);
        }
    }

    /// <summary>Whether nothing is recorded.</summary>
    public bool IsEmpty => _highest.Count == 0;

    /// <summary>Whether the version at <paramref name="position"/> was sent (its partition's highest is at or after it).</summary>
    public bool Covers(LogPosition position) =>
        _highest.TryGetValue((position.Topic, position.Partition), out var highest) && position.Offset <= highest;

    /// <summary>Moves the partition's highest to <paramref name="position"/> if that is higher; true if it moved.</summary>
    public bool Advance(LogPosition position)
    {
        ref var highest = ref System.Runtime.InteropServices.CollectionsMarshal.GetValueRefOrAddDefault(_highest, (position.Topic, position.Partition), out var existed);
        if (existed && highest >= position.Offset)
        {
            return false;
        }

        highest = position.Offset;
        return true;
    }

    /// <summary>Takes every partition's higher highest from <paramref name="positions"/>; true if any moved.</summary>
    public bool Merge(IEnumerable<LogPosition> positions)
    {
        ArgumentNullException.ThrowIfNull(positions);
        var moved = false;
        foreach (var position in positions)
        {
            moved |= Advance(position);
        }

        return moved;
    }

    /// <summary>The highest per partition, in topic and partition order.</summary>
    public List<LogPosition> ToList()
    {
        var list = new List<LogPosition>(_highest.Count);
        foreach (var ((topic, partition), offset) in _highest)
        {
            list.Add(new LogPosition(topic, partition, offset));
        }

        list.Sort(static (a, b) => string.CompareOrdinal(a.Topic, b.Topic) is var byTopic and not 0 ? byTopic : a.Partition.CompareTo(b.Partition));
        return list;
    }

    public EtlLogProgress Copy() => new(ToList());
}
