using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>One topic partition as a source sees it; mutable fields are guarded by its <see cref="KafkaPartitionTable"/>.</summary>
internal sealed class KafkaPartitionState
{
    public KafkaPartitionState(string topic, string origin, int partition)
    {
        Topic = topic;
        Origin = origin;
        Partition = partition;
        TopicPartition = new TopicPartition(topic, new Partition(partition));
    }

    public string Topic { get; }

    /// <summary>The store's position key, "source/topic"; one instance per topic, shared by its items.</summary>
    public string Origin { get; }

    public int Partition { get; }

    public TopicPartition TopicPartition { get; }

    /// <summary>Bumped each time the partition is let go, so items consumed before then are dropped.</summary>
    public int Epoch { get; set; }

    public bool Assigned { get; set; }

    /// <summary>The next offset after the last durable message of this assignment; -1 when none yet.</summary>
    public long DurableNext { get; set; } = -1;

    /// <summary>The offset last committed to Kafka in this assignment; -1 when none yet.</summary>
    public long StoredNext { get; set; } = -1;

    /// <summary>The broker's high watermark as last seen by the consume thread; -1 when unknown.</summary>
    public long HighWatermark { get; set; } = -1;

    /// <summary>Scratch for the writer's thread while it sums up one batch.</summary>
    internal long BatchMax { get; set; } = -1;
}
