using Confluent.Kafka;
using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>
/// A consumer without a broker for the flow control's tests: polls answer from a script (a record,
/// an action such as a rebalance, or a failure), and every pause, resume, seek and offset store is
/// recorded in order. Members the flow control does not use throw.
/// </summary>
internal sealed class ScriptedConsumer : IConsumer<byte[]?, byte[]?>
{
    private readonly Lock _lock = new();
    private readonly Queue<Func<ConsumeResult<byte[]?, byte[]?>?>> _polls = new();
    private readonly List<string> _calls = [];
    private List<TopicPartition> _assignment;

    public ScriptedConsumer(params TopicPartition[] assignment)
    {
        _assignment = [.. assignment];
    }

    /// <summary>What was called, in order: "pause t[0],t[1]", "resume ...", "seek t[0]@5", "store t[0]@42", "poll".</summary>
    public IReadOnlyList<string> Calls
    {
        get
        {
            lock (_lock)
            {
                return [.. _calls];
            }
        }
    }

    public int Polls
    {
        get
        {
            lock (_lock)
            {
                return _calls.Count(static c => c == "poll");
            }
        }
    }

    public List<TopicPartition> Assignment
    {
        get
        {
            lock (_lock)
            {
                return [.. _assignment];
            }
        }
    }

    /// <summary>The next poll returns this record; a null topic, as a consumer asked for headers only returns it (<see cref="KafkaConsumeFields"/>).</summary>
    public void Deliver(string? topic, int partition, long offset, bool endOfPartition = false) =>
        Then(() => new ConsumeResult<byte[]?, byte[]?>
        {
            TopicPartitionOffset = new TopicPartitionOffset(topic, partition, offset),
            Message = endOfPartition ? null : new Message<byte[]?, byte[]?> { Value = [1] },
            IsPartitionEOF = endOfPartition,
        });

    /// <summary>The next poll runs <paramref name="during"/> (as librdkafka runs callbacks inside a poll) and returns nothing.</summary>
    public void Then(Action during) => Then(() =>
    {
        during();
        return null;
    });

    /// <summary>The next poll fails.</summary>
    public void Fail(string reason) =>
        Then(() => throw new ConsumeException(new ConsumeResult<byte[], byte[]>(), new Error(ErrorCode.Local_Transport, reason)));

    public void Reassign(params TopicPartition[] assignment)
    {
        lock (_lock)
        {
            _assignment = [.. assignment];
        }
    }

    public ConsumeResult<byte[]?, byte[]?>? Consume(TimeSpan timeout)
    {
        Func<ConsumeResult<byte[]?, byte[]?>?>? next;
        lock (_lock)
        {
            _calls.Add("poll");
            _polls.TryDequeue(out next);
        }

        if (next is null)
        {
            // Nothing fetched: the poll waits out (a little of) its timeout.
            Thread.Sleep(1);
            return null;
        }

        return next();
    }

    public void Pause(IEnumerable<TopicPartition> partitions) => Record("pause " + Describe(partitions));

    public void Resume(IEnumerable<TopicPartition> partitions) => Record("resume " + Describe(partitions));

    public void Seek(TopicPartitionOffset tpo) => Record($"seek {tpo.Topic}[{tpo.Partition.Value}]@{tpo.Offset.Value}");

    public void StoreOffset(TopicPartitionOffset offset) => Record($"store {offset.Topic}[{offset.Partition.Value}]@{offset.Offset.Value}");

    public WatermarkOffsets GetWatermarkOffsets(TopicPartition topicPartition) => new(0, 100);

    public void Dispose()
    {
    }

    public string MemberId => throw new NotSupportedException();

    public List<string> Subscription => throw new NotSupportedException();

    public IConsumerGroupMetadata ConsumerGroupMetadata => throw new NotSupportedException();

    public Handle Handle => throw new NotSupportedException();

    public string Name => "scripted";

    public int AddBrokers(string brokers) => throw new NotSupportedException();

    public void SetSaslCredentials(string username, string password) => throw new NotSupportedException();

    public ConsumeResult<byte[]?, byte[]?> Consume(int millisecondsTimeout) => throw new NotSupportedException();

    public ConsumeResult<byte[]?, byte[]?> Consume(CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public void Subscribe(IEnumerable<string> topics) => throw new NotSupportedException();

    public void Subscribe(string topic) => throw new NotSupportedException();

    public void Unsubscribe() => throw new NotSupportedException();

    public void Assign(TopicPartition partition) => throw new NotSupportedException();

    public void Assign(TopicPartitionOffset partition) => throw new NotSupportedException();

    public void Assign(IEnumerable<TopicPartitionOffset> partitions) => throw new NotSupportedException();

    public void Assign(IEnumerable<TopicPartition> partitions) => throw new NotSupportedException();

    public void IncrementalAssign(IEnumerable<TopicPartitionOffset> partitions) => throw new NotSupportedException();

    public void IncrementalAssign(IEnumerable<TopicPartition> partitions) => throw new NotSupportedException();

    public void IncrementalUnassign(IEnumerable<TopicPartition> partitions) => throw new NotSupportedException();

    public void Unassign() => throw new NotSupportedException();

    public void StoreOffset(ConsumeResult<byte[]?, byte[]?> result) => throw new NotSupportedException();

    public List<TopicPartitionOffset> Commit() => throw new NotSupportedException();

    public void Commit(IEnumerable<TopicPartitionOffset> offsets) => throw new NotSupportedException();

    public void Commit(ConsumeResult<byte[]?, byte[]?> result) => throw new NotSupportedException();

    public List<TopicPartitionOffset> Committed(TimeSpan timeout) => throw new NotSupportedException();

    public List<TopicPartitionOffset> Committed(IEnumerable<TopicPartition> partitions, TimeSpan timeout) => throw new NotSupportedException();

    public Offset Position(TopicPartition partition) => throw new NotSupportedException();

    public List<TopicPartitionOffset> OffsetsForTimes(IEnumerable<TopicPartitionTimestamp> timestampsToSearch, TimeSpan timeout) =>
        throw new NotSupportedException();

    public WatermarkOffsets QueryWatermarkOffsets(TopicPartition topicPartition, TimeSpan timeout) => throw new NotSupportedException();

    public void Close() => throw new NotSupportedException();

    private void Then(Func<ConsumeResult<byte[]?, byte[]?>?> poll)
    {
        lock (_lock)
        {
            _polls.Enqueue(poll);
        }
    }

    private void Record(string call)
    {
        lock (_lock)
        {
            _calls.Add(call);
        }
    }

    private static string Describe(IEnumerable<TopicPartition> partitions) =>
        string.Join(",", partitions.Select(static tp => $"{tp.Topic}[{tp.Partition.Value}]"));
}
