using Ingest.Server.Batching;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// Acknowledgement bookkeeping: a durable batch is acknowledged with its highest current
/// delivery tag and multiple=true; a delivery that is not taken is handed back (nack, requeue).
/// Tags from a lost channel generation are void, so they are never acknowledged: the broker
/// redelivers those messages.
/// </summary>
internal sealed partial class RabbitMqAcknowledger(string source, RabbitMqSession session, ILogger logger)
{
    private long _acknowledged;

    /// <summary>Messages acknowledged to the broker (counted once the ack is sent).</summary>
    public long Acknowledged => Volatile.Read(ref _acknowledged);

    /// <summary>Acknowledges a durable batch; the writer's loop calls it.</summary>
    public async ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        var generation = session.Generation;
        var tag = DeliveryTags.HighestCurrent(batch.Items, generation);
        var channel = session.Channel;
        if (tag == 0 || channel is not { IsOpen: true })
        {
            // Nothing current, or the channel is gone: its unacknowledged messages are redelivered.
            return;
        }

        try
        {
            var items = batch.Items;
            var acknowledged = 0;
            for (var i = 0; i < items.Length; i++)
            {
                acknowledged += items[i].Position.Epoch == generation ? 1 : 0;
            }

            // Counted before sending, so the count never trails what the broker has processed.
            Interlocked.Add(ref _acknowledged, acknowledged);
            await channel.BasicAckAsync(tag, multiple: true, cancellationToken).ConfigureAwait(false);
        }
        catch (AlreadyClosedException ex)
        {
            LogAckLost(logger, source, ex.Message);
        }
    }

    /// <summary>Hands a delivery back for redelivery; it must not be covered by a later multiple ack.</summary>
    public async Task RequeueAsync(IChannel? channel, ulong deliveryTag)
    {
        if (channel is not { IsOpen: true })
        {
            return;
        }

        try
        {
            await channel.BasicNackAsync(deliveryTag, multiple: false, requeue: true, CancellationToken.None).ConfigureAwait(false);
        }
        catch (AlreadyClosedException ex)
        {
            LogAckLost(logger, source, ex.Message);
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Source '{Source}': an acknowledgement could not be sent ({Reason}); the broker will redeliver")]
    private static partial void LogAckLost(ILogger logger, string source, string reason);
}
