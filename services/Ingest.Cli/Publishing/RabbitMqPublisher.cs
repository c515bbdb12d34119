using Ingest.Contracts.Messages;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Cli.Publishing;

/// <summary>
/// Publishes documents to RabbitMQ as persistent messages on a channel with publisher confirms, so a
/// publish only counts once the broker has taken responsibility for the message.
/// </summary>
internal sealed class RabbitMqPublisher : IDocumentPublisher
{
    // Publishes in flight before waiting for their confirms: one round trip per window, not per message.
    private const int ConfirmWindow = 256;

    private readonly Uri _uri;
    private readonly RabbitMqDestination _destination;

    public RabbitMqPublisher(Uri uri, RabbitMqDestination destination)
    {
        ArgumentNullException.ThrowIfNull(uri);
        ArgumentNullException.ThrowIfNull(destination);
        _uri = uri;
        _destination = destination;
    }

    public string Destination => _destination.ToString();

    /// <summary>The broker's address without credentials, for messages.</summary>
    public static string Describe(Uri uri)
    {
        ArgumentNullException.ThrowIfNull(uri);
        var port = uri.IsDefaultPort || uri.Port < 0
            ? (uri.Scheme == "amqps" ? 5671 : 5672)
            : uri.Port;
        return $"{uri.Scheme}://{uri.Host}:{port}{uri.AbsolutePath}";
    }

    public async Task PublishAsync(IReadOnlyList<InputDocument> documents, PublishSettings settings, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(documents);
        ArgumentNullException.ThrowIfNull(settings);

        var factory = new ConnectionFactory
        {
            Uri = _uri,
            ClientProvidedName = "ingest-cli",

            // A one-shot command reports a lost connection instead of silently reconnecting.
            AutomaticRecoveryEnabled = false,
            RequestedConnectionTimeout = TimeSpan.FromSeconds(10),
        };

        IConnection connection;
        try
        {
            connection = await factory.CreateConnectionAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (BrokerUnreachableException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"cannot connect to rabbitmq at {Describe(_uri)}: {Innermost(ex).Message}", ex);
        }
        catch (OperationInterruptedException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"rabbitmq at {Describe(_uri)} refused the connection: {ReplyText(ex)}", ex);
        }

        await using (connection.ConfigureAwait(false))
        {
            // With confirmation tracking, BasicPublishAsync completes when the broker confirms and throws
            // on a nack, or on a return: publishes are mandatory, so an unroutable message is an error.
            IChannel channel;
            try
            {
                channel = await connection.CreateChannelAsync(
                    new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true),
                    cancellationToken).ConfigureAwait(false);
            }
            catch (OperationInterruptedException ex)
            {
                // The broker accepted the connection, then closed it: an unknown vhost, say.
                throw new CommandFailedException(ExitCodes.Failure, $"rabbitmq at {Describe(_uri)} closed the connection: {ReplyText(ex)}", ex);
            }

            await using (channel.ConfigureAwait(false))
            {
                await EnsureDestinationExistsAsync(channel, cancellationToken).ConfigureAwait(false);
                await PublishAllAsync(channel, documents, settings, cancellationToken).ConfigureAwait(false);
                await channel.CloseAsync(cancellationToken).ConfigureAwait(false);
            }

            await connection.CloseAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task EnsureDestinationExistsAsync(IChannel channel, CancellationToken cancellationToken)
    {
        // Checked up front for a clear "no such queue" rather than every message coming back unroutable.
        try
        {
            if (_destination.IsQueue)
            {
                await channel.QueueDeclarePassiveAsync(_destination.RoutingKey, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                await channel.ExchangeDeclarePassiveAsync(_destination.Exchange, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationInterruptedException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"cannot publish to {Destination}: {ReplyText(ex)}", ex);
        }
    }

    private async Task PublishAllAsync(IChannel channel, IReadOnlyList<InputDocument> documents, PublishSettings settings, CancellationToken cancellationToken)
    {
        var delete = settings.Operation == IngestOperation.Delete;
        var confirmed = 0;
        var window = new List<(InputDocument Document, Task Confirm)>(ConfirmWindow);
        for (var next = 0; next < documents.Count || window.Count > 0;)
        {
            while (next < documents.Count && window.Count < ConfirmWindow)
            {
                var document = documents[next++];
                var body = delete ? ReadOnlyMemory<byte>.Empty : document.Body;
                var confirm = channel.BasicPublishAsync(
                    _destination.Exchange,
                    _destination.RoutingKey,
                    mandatory: true,
                    Properties(document.Id, settings, delete),
                    body,
                    cancellationToken).AsTask();
                window.Add((document, confirm));
            }

            try
            {
                await Task.WhenAll(window.Select(w => w.Confirm)).ConfigureAwait(false);
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // Each failure is looked at below, with the document it belongs to.
            }

            confirmed += window.Count(w => w.Confirm.IsCompletedSuccessfully);
            settings.Progress?.Acknowledged(window.Count(w => w.Confirm.IsCompletedSuccessfully), window.Where(w => w.Confirm.IsCompletedSuccessfully).Sum(w => (long)w.Document.Body.Length));
            var failed = window.FindIndex(w => !w.Confirm.IsCompletedSuccessfully);
            if (failed >= 0)
            {
                var (document, confirm) = window[failed];
                var cause = confirm.Exception?.InnerException;
                throw new CommandFailedException(
                    ExitCodes.Failure,
                    $"{Explain(cause, document)}; {confirmed} of {documents.Count} documents were confirmed",
                    cause ?? new InvalidOperationException("The publish did not complete."));
            }

            window.Clear();
        }
    }

    private string Explain(Exception? exception, InputDocument document) => exception switch
    {
        PublishException { IsReturn: true } =>
            $"document {document} was returned as unroutable: no queue is bound for {Destination}",
        PublishException =>
            $"rabbitmq refused (nack) document {document} published to {Destination}",
        OperationInterruptedException =>
            $"rabbitmq closed the connection while publishing to {Destination}: {ReplyText(exception)}",
        null => $"publishing document {document} to {Destination} failed",
        _ => $"publishing document {document} to {Destination} failed: {exception.Message}",
    };

    private static BasicProperties Properties(string id, PublishSettings settings, bool delete)
    {
        // AMQP carries string header values as UTF-8 long strings, which is what Ingest reads.
        var headers = new Dictionary<string, object?> { [IngestHeaders.Id] = id, [PublishTraceContext.Header] = PublishTraceContext.NextTraceParent() };
        if (settings.Collection is not null)
        {
            headers[IngestHeaders.Collection] = settings.Collection;
        }

        if (delete)
        {
            headers[IngestHeaders.Operation] = IngestOperations.DeleteName;
        }

        return new BasicProperties
        {
            MessageId = id,
            ContentType = delete ? null : "application/json",
            DeliveryMode = DeliveryModes.Persistent,
            Headers = headers,
        };
    }

    /// <summary>
    /// The broker's own words ("NOT_FOUND - no queue 'x' in vhost '/'") when it closed the channel or
    /// connection; <see cref="AlreadyClosedException"/> is an <see cref="OperationInterruptedException"/> too.
    /// </summary>
    private static string ReplyText(Exception exception) => exception switch
    {
        OperationInterruptedException { ShutdownReason: { } reason } => reason.ReplyText,
        _ => exception.Message,
    };

    private static Exception Innermost(Exception exception)
    {
        while (exception.InnerException is not null)
        {
            exception = exception.InnerException;
        }

        return exception;
    }
}
