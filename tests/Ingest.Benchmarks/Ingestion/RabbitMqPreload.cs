using System.Diagnostics;
using RabbitMQ.Client;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// Declares a fresh durable queue and fills it with generated profiles: persistent messages,
/// message-id = document id, publisher confirms awaited in windows of <see cref="ConfirmWindow"/>.
/// </summary>
internal static class RabbitMqPreload
{
    public const int ConfirmWindow = 1_000;

    public static async Task<PreloadedData> RunAsync(Uri uri, string queue, int count, int seed)
    {
        var started = Stopwatch.StartNew();
        var factory = new ConnectionFactory { Uri = uri, AutomaticRecoveryEnabled = false };
        await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
        var confirms = new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true);
        await using var channel = await connection.CreateChannelAsync(confirms).ConfigureAwait(false);
        await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false).ConfigureAwait(false);

        // With confirmation tracking each publish completes when the broker confirmed it (and
        // throws on a nack), so awaiting a window of them bounds what is unconfirmed.
        var generator = new ProfileDocuments(seed);
        var window = new List<Task>(ConfirmWindow);
        long bytes = 0;
        for (var i = 0; i < count; i++)
        {
            var (id, body) = generator.Next();
            bytes += body.Length;
            var properties = new BasicProperties { MessageId = id, DeliveryMode = DeliveryModes.Persistent, ContentType = "application/json" };
            window.Add(channel.BasicPublishAsync(string.Empty, queue, mandatory: true, properties, body).AsTask());
            if (window.Count == ConfirmWindow)
            {
                await Task.WhenAll(window).ConfigureAwait(false);
                window.Clear();
            }
        }

        await Task.WhenAll(window).ConfigureAwait(false);
        var declared = await channel.QueueDeclarePassiveAsync(queue).ConfigureAwait(false);
        if (declared.MessageCount != count)
        {
            throw new InvalidOperationException($"queue {queue} holds {declared.MessageCount} messages after publishing {count}");
        }

        await channel.CloseAsync().ConfigureAwait(false);
        await connection.CloseAsync().ConfigureAwait(false);
        return new PreloadedData(queue, count, bytes, started.Elapsed);
    }

    public static async Task DeleteQueueAsync(Uri uri, string queue)
    {
        var factory = new ConnectionFactory { Uri = uri, AutomaticRecoveryEnabled = false };
        await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
        await using var channel = await connection.CreateChannelAsync().ConfigureAwait(false);
        await channel.QueueDeleteAsync(queue).ConfigureAwait(false);
        await channel.CloseAsync().ConfigureAwait(false);
        await connection.CloseAsync().ConfigureAwait(false);
    }
}
