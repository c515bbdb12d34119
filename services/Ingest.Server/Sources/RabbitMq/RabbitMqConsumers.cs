using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// The consumers on a source's channel: declaring the queues when asked, one consumer per queue,
/// and cancelling them; with the broker's refusals turned into errors that say what to change.
/// </summary>
internal static class RabbitMqConsumers
{
    /// <summary>Declares each queue durable, not exclusive, not auto-delete, without arguments.</summary>
    public static async Task DeclareAsync(IChannel channel, string[] queues, CancellationToken cancellationToken)
    {
        foreach (var queue in queues)
        {
            try
            {
                await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false, arguments: null, cancellationToken: cancellationToken)
                    .ConfigureAwait(false);
            }
            catch (OperationInterruptedException ex) when (ex.ShutdownReason?.ReplyCode == Constants.PreconditionFailed)
            {
                throw new InvalidOperationException(
                    $"RabbitMQ queue '{queue}' exists with other settings than the source declares (durable, not exclusive, not auto-delete, " +
                    $"no arguments): {ex.ShutdownReason.ReplyText}. Set {nameof(RabbitMqSourceOptions.DeclareQueues)}=false to consume it as it is.", ex);
            }
        }
    }

    /// <summary>Starts one consumer per queue (manual acks); <paramref name="onDelivery"/> gets the queue's index. Returns the consumer tags.</summary>
    public static async Task<string[]> StartAsync(
        IChannel channel, string[] queues, Func<int, BasicDeliverEventArgs, Task> onDelivery, CancellationToken cancellationToken)
    {
        var tags = new string[queues.Length];
        for (var i = 0; i < queues.Length; i++)
        {
            var index = i;
            var consumer = new AsyncEventingBasicConsumer(channel);
            consumer.ReceivedAsync += (_, delivery) => onDelivery(index, delivery);
            try
            {
                tags[i] = await channel.BasicConsumeAsync(queues[i], autoAck: false, consumer, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationInterruptedException ex) when (ex.ShutdownReason?.ReplyCode == Constants.NotFound)
            {
                throw new InvalidOperationException(
                    $"RabbitMQ queue '{queues[i]}' does not exist (and {nameof(RabbitMqSourceOptions.DeclareQueues)} is off): {ex.ShutdownReason.ReplyText}", ex);
            }
        }

        return tags;
    }

    /// <summary>Cancels one consumer; null when done, else why it failed (the channel may be closing).</summary>
    public static async Task<string?> TryCancelAsync(IChannel channel, string tag, CancellationToken cancellationToken)
    {
        try
        {
            await channel.BasicCancelAsync(tag, noWait: false, cancellationToken).ConfigureAwait(false);
            return null;
        }
        catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or TimeoutException or OperationCanceledException)
        {
            return ex.Message;
        }
    }
}
