using System.Globalization;
using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Turns a reset target into the next offset of each partition it moves, asking the broker:
/// partitions from the topics' metadata, earliest and latest from the watermarks, a time from
/// offsets-for-times. Explicit offsets are checked against the watermarks, since an offset the
/// broker does not hold would make the consumer fall back to <c>auto.offset.reset</c> unseen.
/// Consume thread only (it uses the consumer's handle).
/// </summary>
internal sealed class KafkaOffsetResolver(string source, IReadOnlyList<string> topics)
{
    private static readonly TimeSpan BrokerTimeout = TimeSpan.FromSeconds(10);

    public List<TopicPartitionOffset> Resolve(IConsumer<byte[]?, byte[]?> consumer, SourceResetTarget target)
    {
        var resolved = new List<TopicPartitionOffset>();
        using var admin = new DependentAdminClientBuilder(consumer.Handle).Build();
        if (target.Kind == SourceResetKind.Offsets)
        {
            foreach (var (topic, offsets) in target.Offsets)
            {
                if (!topics.Contains(topic, StringComparer.Ordinal))
                {
                    throw Invalid($"the source consumes {string.Join(", ", topics.Select(t => $"'{t}'"))}; '{topic}' is not one of them");
                }

                var count = PartitionCount(admin, topic);
                foreach (var (partition, offset) in offsets.OrderBy(p => p.Key))
                {
                    if (partition >= count)
                    {
                        throw Invalid($"topic '{topic}' has partitions 0 to {count - 1}; there is no partition {partition}");
                    }

                    var tp = new TopicPartition(topic, partition);
                    var watermarks = consumer.QueryWatermarkOffsets(tp, BrokerTimeout);
                    if (offset < watermarks.Low.Value || offset > watermarks.High.Value)
                    {
                        throw Invalid(
                            $"{topic}[{partition}] holds offsets {watermarks.Low.Value} to {watermarks.High.Value} (the latter is its end); "
                            + $"{offset.ToString(CultureInfo.InvariantCulture)} is outside them");
                    }

                    resolved.Add(new TopicPartitionOffset(tp, new Offset(offset)));
                }
            }

            return resolved;
        }

        var partitions = new List<TopicPartition>();
        foreach (var topic in topics)
        {
            var count = PartitionCount(admin, topic);
            for (var p = 0; p < count; p++)
            {
                partitions.Add(new TopicPartition(topic, p));
            }
        }

        if (target.Kind == SourceResetKind.Time)
        {
            var timestamps = partitions.Select(tp => new TopicPartitionTimestamp(tp, new Timestamp(target.Time))).ToList();
            foreach (var found in consumer.OffsetsForTimes(timestamps, BrokerTimeout))
            {
                // No message at or after the time: the partition's end, so only what arrives from now on is read.
                var offset = found.Offset == Offset.End || found.Offset.Value < 0
                    ? consumer.QueryWatermarkOffsets(found.TopicPartition, BrokerTimeout).High
                    : found.Offset;
                resolved.Add(new TopicPartitionOffset(found.TopicPartition, offset));
            }

            return resolved;
        }

        foreach (var tp in partitions)
        {
            var watermarks = consumer.QueryWatermarkOffsets(tp, BrokerTimeout);
            resolved.Add(new TopicPartitionOffset(tp, target.Kind == SourceResetKind.Earliest ? watermarks.Low : watermarks.High));
        }

        return resolved;
    }

    private static int PartitionCount(IAdminClient admin, string topic)
    {
        var metadata = admin.GetMetadata(topic, BrokerTimeout);
        var found = metadata.Topics.Find(t => t.Topic == topic);
        if (found is null || found.Error.Code != ErrorCode.NoError || found.Partitions.Count == 0)
        {
            throw new SourceResetException(
                SourceResetProblem.Unavailable,
                $"The broker did not describe topic '{topic}' ({found?.Error.Reason ?? "absent from its metadata"}); nothing was reset.");
        }

        return found.Partitions.Count;
    }

    private SourceResetException Invalid(string why) =>
        new(SourceResetProblem.InvalidTarget, $"Kafka source '{source}' cannot be reset there: {why}; nothing was reset.");
}
