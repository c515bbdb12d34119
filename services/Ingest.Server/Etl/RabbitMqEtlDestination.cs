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
    private readonly EtlRabbitMqSettings _options;
    private readonly string _taskName;
    private readonly string _source;
    private readonly ConfiguredSecrets _secrets;
    private IConnection? _connection;
    private IChannel? _channel;

    public RabbitMqEtlDestination(EtlRabbitMqSettings options, string taskName, string instanceSource, ConfiguredSecrets secrets)
    {
        _secrets = secrets;
        _options = options;
        _taskName = taskName;
        _source = instanceSource;
        Describe = $"rabbitmq exchange '{options.Exchange}' at {RabbitMqEndpoint.Redact(options.Uri!)}";
    }

    public string Describe { get; }

    public async ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return Task.CompletedTask;
        }

        try
        {
            var channel = await ConnectAsync(cancellationToken).ConfigureAwait(false);
            var confirms = new Task[messages.Count];
            for (var i = 0; i < messages.Count; i++)
            {
                var message = messages[i];
                var binary = AmqpCloudEventBinding.Encode(message.ToCloudEvent(_source));
                var headers = new Dictionary<string, object?>(binary.ApplicationProperties);
                Telemetry.EtlTracing.AddTraceParent(headers);
                foreach (var (name, value) in message.Headers)
                {
                    headers[name] = value;
                }

                var properties = new BasicProperties
                {
                    ContentType = binary.ContentType,
                    MessageId = message.EventId,
                    DeliveryMode = DeliveryModes.Persistent,
                    Headers = headers,
                };
                confirms[i] = channel.BasicPublishAsync(
                    _options.Exchange!, message.Destination ?? string.Empty, mandatory: true, properties, binary.Body, cancellationToken).AsTask();
            }

            return WaitForConfirmsAsync(confirms);
        }
        catch (Exception ex) when (ToDeliveryError(ex) is { } error)
        {
            throw error;
        }
    }

    private async Task WaitForConfirmsAsync(Task[] confirms)
    {
        try
        {
            await Task.WhenAll(confirms).ConfigureAwait(false);
        }
        catch (Exception ex) when (ToDeliveryError(ex) is { } error)
        {
            throw error;
        }
    }

    /// <summary>A publishing failure as the task reports it; null for other exceptions.</summary>
    private EtlDeliveryException? ToDeliveryError(Exception ex) => ex switch
    {
        PublishException publish => new EtlDeliveryException(
            publish.IsReturn
                ? $"RabbitMQ returned a message as unroutable: no queue is bound to exchange '{_options.Exchange}' for its routing key."
                : "RabbitMQ refused (nacked) a message.",
            ex),
        OperationInterruptedException or AlreadyClosedException or BrokerUnreachableException or IOException =>
            new EtlDeliveryException($"RabbitMQ connection failed: {ex.Message}", ex),
        _ => null,
    };

    private async Task<IChannel> ConnectAsync(CancellationToken cancellationToken)
    {
        if (_channel is { IsOpen: true } open)
        {
            return open;
        }

        await CloseAsync().ConfigureAwait(false);
        // The task reconnects itself after a failed batch and sends the batch again.
        var factory = RabbitMqEndpoint.CreateFactory(_secrets.ResolveUri(_options.Uri!), _options.Tls, $"ingest-etl:{_taskName}", automaticRecovery: false);

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
            throw new EtlDeliveryException($"RabbitMQ connection failed: {RabbitMqEndpoint.DescribeFailure(ex, _options.Uri!, _options.Tls)}", ex);
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
