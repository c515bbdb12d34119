using Ingest.Contracts.Messages;
using Ingest.Server.Sources.Mapping;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// Handles deliveries, which the client dispatches one at a time per channel: maps each through
/// the source's pipeline and hands it to the writer. Flow control is the wait in that hand-over:
/// while the store is behind the handler waits, which holds the channel's dispatch, and the
/// prefetch limit keeps the broker from sending more meanwhile.
/// </summary>
internal sealed partial class RabbitMqDeliveryHandler(
    string[] queues, string[] origins, SourcePipeline pipeline, RabbitMqSession session, RabbitMqAcknowledger acknowledger,
    CancellationToken abortAdds)
{
    // Stop and dispose take this gate to wait out the delivery in progress.
    private readonly SemaphoreSlim _gate = new(1, 1);
    private int _waiting;

    /// <summary>Whether a delivery is waiting for the writer (for the status).</summary>
    public bool IsWaiting => Volatile.Read(ref _waiting) > 0;

    public async Task OnReceivedAsync(int queueIndex, BasicDeliverEventArgs delivery)
    {
        await _gate.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            var channel = session.Channel;
            if (session.IsStopping)
            {
                // Stopping after the consumers were cancelled: leave it for the broker to redeliver.
                await acknowledger.RequeueAsync(channel, delivery.DeliveryTag).ConfigureAwait(false);
                return;
            }

            var properties = delivery.BasicProperties;
            var headers = properties.Headers is { } table ? new DictionaryMessageHeaders(table) : null;
            var message = IncomingMessage.FromAmqp(queues[queueIndex], properties.MessageId, delivery.Body.Span, headers);
            var position = new ItemPosition(origins[queueIndex], 0, (long)delivery.DeliveryTag, session.Generation);

            // The client's body memory is only valid during this handler: a put is copied.
            var item = pipeline.Map(message, new AmqpEnvelopeHeaders(properties.Headers), ownedBody: default, position);
            try
            {
                var pending = pipeline.AddAsync(item, abortAdds);
                if (!pending.IsCompletedSuccessfully)
                {
                    Interlocked.Increment(ref _waiting);
                    try
                    {
                        await pending.ConfigureAwait(false);
                    }
                    finally
                    {
                        Interlocked.Decrement(ref _waiting);
                    }
                }
            }
            catch (Exception ex) when (ex is OperationCanceledException or InvalidOperationException or ObjectDisposedException)
            {
                // Not added, so it must not be covered by a later multiple ack: hand it back now.
                await acknowledger.RequeueAsync(channel, delivery.DeliveryTag).ConfigureAwait(false);
            }
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Waits until no delivery is being handled.</summary>
    public async Task WaitIdleAsync(CancellationToken cancellationToken)
    {
        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        _gate.Release();
    }

    /// <summary>
    /// Once no delivery is being handled (and, the session being closed, none can follow),
    /// disposes the gate; false if one did not finish in time: the gate is then left to it.
    /// </summary>
    public async Task<bool> TryCloseAsync(TimeSpan timeout)
    {
        if (!await _gate.WaitAsync(timeout).ConfigureAwait(false))
        {
            return false;
        }

        _gate.Dispose();
        return true;
    }
}
