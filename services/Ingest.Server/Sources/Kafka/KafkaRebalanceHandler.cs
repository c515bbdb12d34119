using System.Globalization;
using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Batching;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The consumer group's rebalance callbacks, which librdkafka runs on the consume thread inside
/// Consume and Close. An assignment resumes each partition from the store's position (exactly
/// once comes from the store, and where it has no position the partition is read from its start, or from its
/// end when the source was set to start there: never from the group's committed offsets, which a deleted data
/// directory leaves behind); a revocation first makes everything consumed from the partitions
/// durable and stores their offsets; a loss drops what is not written (the broker redelivers it).
/// </summary>
internal sealed partial class KafkaRebalanceHandler(
    string source, DocumentStore store, KafkaPartitionTable partitions, BatchWriter writer, KafkaOffsetStorer offsets, KafkaFlowControl flow,
    KafkaConnectionStatus connection, KafkaGroupWatch? watch, Offset startWithoutPosition, CancellationToken abandon, CancellationToken drainCancel,
    ILogger logger)
{
    private int _assignedCount;

    /// <summary>Partitions assigned now (read by status requests).</summary>
    public int AssignedCount => Volatile.Read(ref _assignedCount);

    /// <summary>Waits until everything handed to the writer is durable; false when given up on (stop cancelled, writer stopped).</summary>
    public bool DrainWriter(string why)
    {
        try
        {
            writer.DrainAsync(drainCancel).GetAwaiter().GetResult();
            return true;
        }
        catch (OperationCanceledException)
        {
            LogDrainAbandoned(logger, source, why);
            return false;
        }
        catch (Exception ex) when (ex is InvalidOperationException or ObjectDisposedException)
        {
            LogDrainFailed(logger, source, why, ex);
            return false;
        }
    }

    /// <summary>
    /// A graceful stop: everything consumed becomes durable and its offsets stored for the group,
    /// then the consumer leaves it (which runs <see cref="OnRevoked"/> once more).
    /// </summary>
    public void Leave(IConsumer<byte[]?, byte[]?> consumer)
    {
        DrainWriter("stop");
        offsets.StoreOffsets(consumer, final: true);
        consumer.Close();
        watch?.OnLeft();
    }

    public IEnumerable<TopicPartitionOffset> OnAssigned(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartition> assigned)
    {
        // Anything still in flight for earlier assignments lands first, so the positions read
        // below are the last word.
        if (!abandon.IsCancellationRequested)
        {
            DrainWriter("assignment");
        }

        var resumeAt = new List<TopicPartitionOffset>(assigned.Count);
        foreach (var tp in assigned)
        {
            var state = partitions.Assign(tp.Topic, tp.Partition.Value);
            var stored = store.GetSourcePosition(state.Origin, state.Partition);
            var offset = stored is { } position ? new Offset(position.Position.NextOffset) : startWithoutPosition;
            resumeAt.Add(new TopicPartitionOffset(tp, offset));
        }

        Interlocked.Add(ref _assignedCount, assigned.Count);
        flow.OnAssignmentChanged();
        connection.RecordContact();
        watch?.OnAssigned(consumer.MemberId, resumeAt);
        LogAssigned(logger, source, Describe(resumeAt));
        return resumeAt;
    }

    public void OnRevoked(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartitionOffset> revoked)
    {
        if (!abandon.IsCancellationRequested)
        {
            // Everything consumed from these partitions becomes durable, and its offsets stored
            // for the group, before they go.
            DrainWriter("revocation");
            offsets.StoreOffsets(consumer, final: true);
        }

        Release(revoked);
        LogRevoked(logger, source, Describe(revoked));
    }

    public void OnLost(IConsumer<byte[]?, byte[]?> consumer, List<TopicPartitionOffset> lost)
    {
        // Another member may own them already: store nothing, drop what is not written yet (the
        // broker redelivers it, and the next owner starts from the store's positions).
        Release(lost);
        if (!abandon.IsCancellationRequested)
        {
            DrainWriter("lost partitions");
        }

        LogLost(logger, source, Describe(lost));
    }

    private void Release(List<TopicPartitionOffset> released)
    {
        foreach (var tpo in released)
        {
            partitions.Release(tpo.Topic, tpo.Partition.Value);
        }

        Interlocked.Add(ref _assignedCount, -released.Count);
        flow.OnAssignmentChanged(released);
    }

    internal static string Describe(List<TopicPartitionOffset> offsets)
    {
        if (offsets.Count == 0)
        {
            return "none";
        }

        var parts = new string[offsets.Count];
        for (var i = 0; i < offsets.Count; i++)
        {
            var offset = offsets[i].Offset;
            var at = offset == Offset.Beginning ? "start" : offset == Offset.End ? "end" : offset.Value.ToString(CultureInfo.InvariantCulture);
            parts[i] = $"{offsets[i].Topic}[{offsets[i].Partition.Value}]@{at}";
        }

        return string.Join(", ", parts);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': assigned {Partitions} (offsets from the store; its start, or its end if so configured, where the store has none)")]
    private static partial void LogAssigned(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': revoked {Partitions}, after writing what was consumed from them and storing its offsets")]
    private static partial void LogRevoked(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': lost {Partitions}; unwritten messages from them are dropped and will be redelivered")]
    private static partial void LogLost(ILogger logger, string source, string partitions);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': gave up waiting for the store during {Why}; unwritten messages will be redelivered")]
    private static partial void LogDrainAbandoned(ILogger logger, string source, string why);

    [LoggerMessage(Level = LogLevel.Error, Message = "Kafka source '{Source}': could not drain the writer during {Why}")]
    private static partial void LogDrainFailed(ILogger logger, string source, string why, Exception exception);
}
