using Confluent.Kafka;
using Ingest.Documents;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// A Kafka source's bookkeeping per topic partition, shared by its consume thread (assignments,
/// epochs, commits) and its writer's thread (what is current, what became durable). Offsets kept
/// here are "next" offsets, as Kafka commits and the store keeps them. It is the source's
/// <see cref="ISourcePositions"/>: the writer asks it which items are current and which offsets commit.
/// </summary>
internal sealed class KafkaPartitionTable : ISourcePositions
{
    private readonly string _source;
    private readonly Lock _gate = new();
    private readonly Dictionary<string, List<KafkaPartitionState?>> _byTopic = new(StringComparer.Ordinal);
    private readonly Dictionary<string, List<KafkaPartitionState?>> _byOrigin = new(StringComparer.Ordinal);

    // The writer's thread only: the partitions one batch touches.
    private readonly List<KafkaPartitionState> _touched = [];

    public KafkaPartitionTable(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        _source = source;
    }

    /// <summary>The state of a partition, created on first sight.</summary>
    public KafkaPartitionState Get(string topic, int partition)
    {
        lock (_gate)
        {
            if (!_byTopic.TryGetValue(topic, out var partitions))
            {
                partitions = [];
                _byTopic.Add(topic, partitions);
                _byOrigin.Add(_source + "/" + topic, partitions);
            }

            while (partitions.Count <= partition)
            {
                partitions.Add(null);
            }

            if (partitions[partition] is not { } state)
            {
                // Every partition of a topic shares the first one's origin string.
                var origin = FirstOrigin(partitions) ?? SourceOrigin.Of(_source, topic);
                partitions[partition] = state = new KafkaPartitionState(topic, origin, partition);
            }

            return state;
        }
    }

    /// <summary>The state of a partition (created on first sight) and the epoch items consumed now are stamped with, under one lock.</summary>
    public KafkaPartitionState Get(string topic, int partition, out int epoch)
    {
        lock (_gate)
        {
            if (Find(topic, partition, byOrigin: false) is { } known)
            {
                epoch = known.Epoch;
                return known;
            }
        }

        var state = Get(topic, partition);
        lock (_gate)
        {
            epoch = state.Epoch;
        }

        return state;
    }

    /// <summary>The epoch items consumed now are stamped with.</summary>
    public int EpochOf(KafkaPartitionState state)
    {
        lock (_gate)
        {
            return state.Epoch;
        }
    }

    public bool IsCurrent(in IngestItem item)
    {
        lock (_gate)
        {
            return Find(item.Position.Origin, item.Position.Partition) is { Assigned: true } state && state.Epoch == item.Position.Epoch;
        }
    }

    /// <summary>Marks a partition assigned; its commit bookkeeping starts afresh.</summary>
    public KafkaPartitionState Assign(string topic, int partition)
    {
        var state = Get(topic, partition);
        lock (_gate)
        {
            state.Assigned = true;
            state.DurableNext = -1;
            state.StoredNext = -1;
            state.HighWatermark = -1;
        }

        return state;
    }

    /// <summary>Lets a partition go (revoked or lost): items consumed from it so far are no longer current, nothing more is committed for it.</summary>
    public void Release(string topic, int partition)
    {
        var state = Get(topic, partition);
        lock (_gate)
        {
            state.Assigned = false;
            state.Epoch++;
            state.DurableNext = -1;
            state.StoredNext = -1;
            state.HighWatermark = -1;
        }
    }

    /// <summary>
    /// A reset moved an assigned partition to <paramref name="next"/>: durable progress starts again
    /// there (it may be lower than before), and the group is told once it is stored.
    /// </summary>
    public void Rewind(KafkaPartitionState state, long next)
    {
        lock (_gate)
        {
            if (state.Assigned)
            {
                state.DurableNext = next;
                state.StoredNext = -1;
            }
        }
    }

    /// <summary>Adds, per partition of the current items, the position after the last of them.</summary>
    public void AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items)
    {
        // These items are being written whatever happened to their partition since the writer
        // checked them, so their positions must commit with them: no assignment or epoch filter.
        SumUp(items, writtenItems: true);
        foreach (var state in _touched)
        {
            batch.SetSourcePosition(state.Origin, state.Partition, state.BatchMax + 1);
        }
    }

    /// <summary>Records that the current items of a batch are durable, so their offsets may be committed to Kafka.</summary>
    public void RecordDurable(ReadOnlySpan<IngestItem> items)
    {
        SumUp(items, writtenItems: false);
        lock (_gate)
        {
            foreach (var state in _touched)
            {
                if (state.Assigned && state.BatchMax + 1 > state.DurableNext)
                {
                    state.DurableNext = state.BatchMax + 1;
                }
            }
        }
    }

    /// <summary>Adds the offsets that are durable but not yet committed to Kafka, for assigned partitions; the number added.</summary>
    public int CollectUnstored(List<TopicPartitionOffset> into)
    {
        var added = 0;
        lock (_gate)
        {
            foreach (var partitions in _byTopic.Values)
            {
                foreach (var state in partitions)
                {
                    if (state is { Assigned: true } && state.DurableNext > state.StoredNext)
                    {
                        into.Add(new TopicPartitionOffset(state.TopicPartition, new Offset(state.DurableNext)));
                        added++;
                    }
                }
            }
        }

        return added;
    }

    /// <summary>Records offsets Kafka accepted.</summary>
    public void MarkStored(List<TopicPartitionOffset> offsets)
    {
        lock (_gate)
        {
            foreach (var offset in offsets)
            {
                if (Find(offset.Topic, offset.Partition.Value, byOrigin: false) is { Assigned: true } state && offset.Offset.Value > state.StoredNext)
                {
                    state.StoredNext = offset.Offset.Value;
                }
            }
        }
    }

    /// <summary>The assigned partitions, for status and watermark refreshes.</summary>
    public void CollectAssigned(List<KafkaPartitionState> into)
    {
        lock (_gate)
        {
            foreach (var partitions in _byTopic.Values)
            {
                foreach (var state in partitions)
                {
                    if (state is { Assigned: true })
                    {
                        into.Add(state);
                    }
                }
            }
        }
    }

    public void SetHighWatermark(KafkaPartitionState state, long high)
    {
        lock (_gate)
        {
            state.HighWatermark = high;
        }
    }

    public long HighWatermarkOf(KafkaPartitionState state)
    {
        lock (_gate)
        {
            return state.HighWatermark;
        }
    }

    // Fills _touched with the partitions of the batch's current items, each with its highest offset.
    private void SumUp(ReadOnlySpan<IngestItem> items, bool writtenItems)
    {
        foreach (var state in _touched)
        {
            state.BatchMax = -1;
        }

        _touched.Clear();
        lock (_gate)
        {
            KafkaPartitionState? last = null;
            for (var i = 0; i < items.Length; i++)
            {
                var position = items[i].Position;
                var state = last is not null && ReferenceEquals(last.Origin, position.Origin) && last.Partition == position.Partition
                    ? last
                    : Find(position.Origin, position.Partition);
                last = state;
                if (state is null || (!writtenItems && (!state.Assigned || state.Epoch != position.Epoch)))
                {
                    continue;
                }

                if (state.BatchMax < 0)
                {
                    _touched.Add(state);
                }

                if (position.Offset > state.BatchMax)
                {
                    state.BatchMax = position.Offset;
                }
            }
        }
    }

    private KafkaPartitionState? Find(string name, int partition, bool byOrigin = true)
    {
        var map = byOrigin ? _byOrigin : _byTopic;
        return map.TryGetValue(name, out var partitions) && (uint)partition < (uint)partitions.Count ? partitions[partition] : null;
    }

    private static string? FirstOrigin(List<KafkaPartitionState?> partitions)
    {
        foreach (var state in partitions)
        {
            if (state is not null)
            {
                return state.Origin;
            }
        }

        return null;
    }
}
