using System.Diagnostics;
using System.Globalization;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// The baseline, tuned to be as fast as a plain consumer gets: one channel, manual acks, the
/// ingest source's prefetch window, one "multiple" ack every quarter of the window (so the broker
/// always has room to send and acks cost one frame per many deliveries) and one for the tail, no
/// per-message work but counting.
/// </summary>
internal static class RabbitMqPlainConsumer
{
    /// <summary>The settings, for the benchmark's output.</summary>
    public static string Describe(ushort prefetch) =>
        string.Create(CultureInfo.InvariantCulture, $"plain consumer: one channel, prefetch {prefetch:N0}, one multiple ack per {AckEvery(prefetch):N0} deliveries, autoAck off");

    private static int AckEvery(ushort prefetch) => Math.Max(1, prefetch / 4);

    public static async Task<IngestionMeasurement> RunAsync(Uri uri, PreloadedData data, ushort prefetch, TimeSpan timeout)
    {
        var ackEvery = AckEvery(prefetch);
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
