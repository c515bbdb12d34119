using System.Diagnostics;
using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// What the consume thread does while the writer has no room: block through a short wait, and
/// for a longer one pause fetching but keep polling, so the group membership and the rebalance
/// callbacks stay alive. Records that still arrive while paused are rewound to at resume, never
/// dropped nor buffered. Consume thread only, except <see cref="IsPaused"/>.
/// </summary>
/// <param name="pauseAfter">How long a wait blocks before fetching pauses; 1 s unless a test says otherwise.</param>
/// <param name="onlyTopic">The topic of results that carry none (<see cref="KafkaConsumeFields"/>).</param>
internal sealed partial class KafkaFlowControl(
    string source, KafkaConnectionStatus connection, KafkaHousekeeping housekeeping, ILogger logger, TimeSpan? pauseAfter = null, string? onlyTopic = null)
{
    private static readonly TimeSpan DefaultPauseAfter = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan PausedPollTimeout = TimeSpan.FromMilliseconds(20);

    private readonly TimeSpan _pauseAfter = pauseAfter ?? DefaultPauseAfter;
    private readonly Dictionary<TopicPartition, long> _rewinds = [];
    private int _assignmentVersion;
    private volatile bool _paused;

    /// <summary>Whether fetching is paused now (for the status).</summary>
    public bool IsPaused => _paused;

    /// <summary>The assignment changed (a rebalance callback ran): a pause in progress re-pauses the new assignment.</summary>
    public void OnAssignmentChanged(List<TopicPartitionOffset>? released = null)
    {
        _assignmentVersion++;
        if (released is not null)
        {
            foreach (var tpo in released)
            {
                _rewinds.Remove(tpo.TopicPartition);
            }
        }
    }

    /// <summary>Returns once <paramref name="pending"/> (the writer taking an item) has; rethrows its failure.</summary>
    public void WaitFor(IConsumer<byte[]?, byte[]?> consumer, ValueTask pending)
    {
        if (pending.IsCompletedSuccessfully)
        {
            return;
        }

        // Most waits last one batch commit (milliseconds): block through those, and pause the
        // fetcher only for a longer stall. A pause costs a seek and a fetch round trip per
        // partition, which at every full batch cut throughput by an order of magnitude.
        // Meanwhile librdkafka's own prefetch queue (queued.max.messages.kbytes) bounds memory.
        var task = pending.AsTask();
        if (Task.WaitAny([task], _pauseAfter) < 0)
        {
            WaitPaused(consumer, task);
        }
        else
        {
            task.GetAwaiter().GetResult();
        }
    }

    private void WaitPaused(IConsumer<byte[]?, byte[]?> consumer, Task pending)
    {
        _paused = true;
        LogPaused(logger, source, _pauseAfter);
        var started = Stopwatch.GetTimestamp();
        var pausedVersion = -1;
        _rewinds.Clear();
        try
        {
            while (!pending.IsCompleted)
            {
                if (pausedVersion != _assignmentVersion)
                {
                    pausedVersion = _assignmentVersion;
                    consumer.Pause(consumer.Assignment);
                }

                try
                {
                    var result = consumer.Consume(PausedPollTimeout);
                    if (result is not null && !result.IsPartitionEOF)
                    {
                        // Rewound to at resume: the lowest offset seen per partition.
                        var tp = new TopicPartition(KafkaConsumeFields.TopicOf(result, onlyTopic), result.Partition);
                        if (!_rewinds.TryGetValue(tp, out var lowest) || result.Offset.Value < lowest)
                        {
                            _rewinds[tp] = result.Offset.Value;
                        }
                    }

                    housekeeping.RunIfDue(consumer);
                }
                catch (ConsumeException ex)
                {
                    connection.RecordConsumeError(ex.Error.Reason);
                    LogPausedPollFailed(logger, source, ex.Error.Reason, ex);
                }
            }

            pending.GetAwaiter().GetResult();
        }
        finally
        {
            var assignment = consumer.Assignment;
            foreach (var (tp, offset) in _rewinds)
            {
                if (assignment.Contains(tp))
                {
                    consumer.Seek(new TopicPartitionOffset(tp, new Offset(offset)));
                }
            }

            _rewinds.Clear();
            consumer.Resume(assignment);
            _paused = false;
            LogResumed(logger, source, Stopwatch.GetElapsedTime(started));
        }
    }

    // Information: a pause needs a stall of a second or more, so these two lines come once per episode, never per batch.
    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': paused fetching, the store has not taken a batch for {Waited}")]
    private static partial void LogPaused(ILogger logger, string source, TimeSpan waited);

    [LoggerMessage(Level = LogLevel.Information, Message = "Kafka source '{Source}': resumed after the store caught up ({Paused} paused)")]
    private static partial void LogResumed(ILogger logger, string source, TimeSpan paused);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Kafka source '{Source}': consuming failed while paused ({Reason}); retrying")]
    private static partial void LogPausedPollFailed(ILogger logger, string source, string reason, Exception exception);
}
