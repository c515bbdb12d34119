using System.Diagnostics;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// The baseline: a RabbitMQ.Client consumer with the ingest source's prefetch that only
/// acknowledges, one "multiple" ack every <see cref="AckEvery"/> deliveries (a quarter of the
/// prefetch, so the broker never waits for room) and one for the tail.
/// </summary>
internal static class RabbitMqPlainConsumer
{
    public static async Task<IngestionMeasurement> RunAsync(Uri uri, PreloadedData data, ushort prefetch, TimeSpan timeout)
    {
        var ackEvery = Math.Max(1, prefetch / 4);
        var factory = new ConnectionFactory { Uri = uri, AutomaticRecoveryEnabled = false };
        var started = Stopwatch.GetTimestamp();
        await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
        await using var channel = await connection.CreateChannelAsync().ConfigureAwait(false);
        await channel.BasicQosAsync(prefetchSize: 0, prefetchCount: prefetch, global: false).ConfigureAwait(false);

        long count = 0;
        long bytes = 0;
        long first = 0;
        long end = 0;
        var unacked = 0;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new AsyncEventingBasicConsumer(channel);

        // Deliveries on one channel are dispatched one at a time, so the counters need no locks.
        consumer.ReceivedAsync += async (_, delivery) =>
        {
            if (count == 0)
            {
                first = Stopwatch.GetTimestamp();
            }

            count++;
            bytes += delivery.Body.Length;
            if (++unacked >= ackEvery || count == data.Documents)
            {
                unacked = 0;
                await channel.BasicAckAsync(delivery.DeliveryTag, multiple: true).ConfigureAwait(false);
            }

            if (count == data.Documents)
            {
                end = Stopwatch.GetTimestamp();
                done.TrySetResult();
            }
        };
        var tag = await channel.BasicConsumeAsync(data.Destination, autoAck: false, consumer).ConfigureAwait(false);
        try
        {
            await done.Task.WaitAsync(timeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"read {Volatile.Read(ref count)} of {data.Documents} messages from {data.Destination} in {timeout}");
        }

        await channel.BasicCancelAsync(tag).ConfigureAwait(false);
        await channel.CloseAsync().ConfigureAwait(false);
        await connection.CloseAsync().ConfigureAwait(false);
        return new IngestionMeasurement(count, bytes, Stopwatch.GetElapsedTime(started, first), Stopwatch.GetElapsedTime(first, end));
    }
}
