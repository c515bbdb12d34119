using Ingest.Contracts.CloudEvents;
using Ingest.Server.Brokers;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Etl;

/// <summary>
/// Publishes CloudEvents (binary mode) to a RabbitMQ exchange with publisher confirms and the
/// mandatory flag: a publish completes when the broker confirmed it, and a message no queue takes
/// is returned and fails the batch instead of vanishing. Persistent delivery mode.
/// </summary>
internal sealed class RabbitMqEtlDestination : IEtlDestination
{
    private readonly EtlRabbitMqDestination _options;
    private readonly string _taskName;
    private IConnection? _connection;
    private IChannel? _channel;

    public RabbitMqEtlDestination(EtlRabbitMqDestination options, string taskName)
    {
        _options = options;
        _taskName = taskName;
        Describe = $"rabbitmq exchange '{options.Exchange}' at {RabbitMqEndpoint.Redact(options.Uri!)}";
    }

    public string Describe { get; }

    public async Task PublishAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return;
        }

        var channel = await ConnectAsync(cancellationToken).ConfigureAwait(false);
        var confirms = new Task[messages.Count];
        try
        {
            for (var i = 0; i < messages.Count; i++)
            {
                var message = messages[i];
                var binary = AmqpCloudEventBinding.Encode(message.Event);
                var headers = new Dictionary<string, object?>(binary.ApplicationProperties);
                Telemetry.EtlTracing.AddTraceParent(headers);
                foreach (var (name, value) in message.Headers)
                {
                    headers[name] = value;
                }

                var properties = new BasicProperties
                {
                    ContentType = binary.ContentType,
                    MessageId = message.Event.Id,
                    DeliveryMode = DeliveryModes.Persistent,
                    Headers = headers,
                };
                confirms[i] = channel.BasicPublishAsync(
                    _options.Exchange!, message.Destination ?? string.Empty, mandatory: true, properties, binary.Body, cancellationToken).AsTask();
            }

            await Task.WhenAll(confirms).ConfigureAwait(false);
        }
        catch (PublishException ex)
        {
            throw new EtlDeliveryException(ex.IsReturn
                ? $"RabbitMQ returned a message as unroutable: no queue is bound to exchange '{_options.Exchange}' for its routing key."
                : "RabbitMQ refused (nacked) a message.", ex);
        }
        catch (Exception ex) when (ex is OperationInterruptedException or AlreadyClosedException or BrokerUnreachableException or IOException)
        {
            throw new EtlDeliveryException($"RabbitMQ connection failed: {ex.Message}", ex);
        }
    }

    private async Task<IChannel> ConnectAsync(CancellationToken cancellationToken)
    {
        if (_channel is { IsOpen: true } open)
        {
            return open;
        }

        await CloseAsync().ConfigureAwait(false);
        // The task reconnects itself after a failed batch and sends the batch again.
        var factory = RabbitMqEndpoint.CreateFactory(_options.Uri!, $"ingest-etl:{_taskName}", automaticRecovery: false);

        try
        {
            _connection = await factory.CreateConnectionAsync(cancellationToken).ConfigureAwait(false);
            _channel = await _connection.CreateChannelAsync(
                new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true), cancellationToken).ConfigureAwait(false);
            if (_options.Exchange!.Length > 0)
            {
                await _channel.ExchangeDeclarePassiveAsync(_options.Exchange, cancellationToken).ConfigureAwait(false);
            }

            return _channel;
        }
        catch (OperationInterruptedException ex)
        {
            await CloseAsync().ConfigureAwait(false);
            throw new EtlDeliveryException($"RabbitMQ exchange '{_options.Exchange}' cannot be used: {ex.ShutdownReason?.ReplyText ?? ex.Message}", ex);
        }
        catch (BrokerUnreachableException ex)
        {
            await CloseAsync().ConfigureAwait(false);
            throw new EtlDeliveryException($"RabbitMQ is unreachable: {ex.InnerException?.Message ?? ex.Message}", ex);
        }
    }

    private async Task CloseAsync()
    {
        var channel = _channel;
        var connection = _connection;
        _channel = null;
        _connection = null;
        if (channel is not null)
        {
            await channel.DisposeAsync().ConfigureAwait(false);
        }

        if (connection is not null)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
        }
    }

    public async ValueTask DisposeAsync() => await CloseAsync().ConfigureAwait(false);
}
