using RabbitMQ.Client;

namespace Ingest.Server.Tests.Sources.RabbitMq;

/// <summary>The test's own side of the broker: declares queues, publishes with confirms, reads queue depths.</summary>
internal sealed class AmqpTestClient : IAsyncDisposable
{
    private const int ConfirmWindow = 1_000;
    private readonly IConnection _connection;
    private readonly IChannel _publisher;

    private AmqpTestClient(IConnection connection, IChannel publisher)
    {
        _connection = connection;
        _publisher = publisher;
    }

    public static async Task<AmqpTestClient> ConnectAsync(Uri uri)
    {
        var factory = new ConnectionFactory { Uri = uri, ClientProvidedName = "ingest-tests" };
        var connection = await factory.CreateConnectionAsync();
        // With tracking on, each publish completes once the broker confirmed it (and throws on a nack).
        var publisher = await connection.CreateChannelAsync(new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true));
        return new AmqpTestClient(connection, publisher);
    }

    public async Task DeclareAsync(string queue) =>
        await _publisher.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);

    /// <summary>Publishes persistent messages; returns once the broker has confirmed every one.</summary>
    public async Task PublishAsync(string queue, int count, Func<int, (BasicProperties Properties, byte[] Body)> message)
    {
        var window = new List<Task>(ConfirmWindow);
        for (var i = 0; i < count; i++)
        {
            var (properties, body) = message(i);
            properties.DeliveryMode = DeliveryModes.Persistent;
            window.Add(_publisher.BasicPublishAsync(string.Empty, queue, mandatory: true, properties, body).AsTask());
            if (window.Count == ConfirmWindow)
            {
                await Task.WhenAll(window);
                window.Clear();
            }
        }

        await Task.WhenAll(window);
    }

    /// <summary>Messages ready for delivery (not counting those delivered and awaiting an ack).</summary>
    public async Task<uint> ReadyAsync(string queue)
    {
        await using var channel = await _connection.CreateChannelAsync();
        return (await channel.QueueDeclarePassiveAsync(queue)).MessageCount;
    }

    public async Task DeleteAsync(string queue)
    {
        await using var channel = await _connection.CreateChannelAsync();
        await channel.QueueDeleteAsync(queue);
    }

    public async ValueTask DisposeAsync()
    {
        await _publisher.DisposeAsync();
        await _connection.CloseAsync();
        await _connection.DisposeAsync();
    }
}
