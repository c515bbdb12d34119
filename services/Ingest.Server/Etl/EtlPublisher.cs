namespace Ingest.Server.Etl;

/// <summary>
/// An ETL task's connection to its broker: creates the destination on the first send (and again after
/// <see cref="CloseAsync"/>), and hands it messages one caller at a time, so the loop's batches and an
/// error's retry over HTTP keep their order.
/// </summary>
internal sealed class EtlPublisher(EtlTaskDefinition definition, Func<EtlTaskDefinition, IEtlDestination> createDestination)
{
    private readonly SemaphoreSlim _gate = new(1, 1);
    private IEtlDestination? _destination;

    /// <summary>Where the messages go (no credentials): the open destination's own description, else the definition's.</summary>
    public string Describe => _destination?.Describe ?? DescribeDestination(definition);

    private static string DescribeDestination(EtlTaskDefinition definition) => definition.Kafka is { } kafka
        ? $"kafka topic '{kafka.Topic}' at {kafka.BootstrapServers}"
        : $"rabbitmq exchange '{definition.RabbitMq?.Exchange}' at {Brokers.RabbitMqEndpoint.Redact(definition.RabbitMq?.Uri ?? string.Empty)}";

    /// <summary>Hands the messages to the destination (connecting first if needed).</summary>
    /// <returns>The task of the broker's acknowledgement of them all.</returns>
    public async Task<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken)
    {
        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            _destination ??= createDestination(definition);
            return await _destination.SendAsync(messages, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>As <see cref="SendAsync"/>, with the failure to hand the messages over returned instead of thrown.</summary>
    /// <returns>The task of the broker's acknowledgement, or the failure to hand the messages over.</returns>
    public async Task<(Task Acknowledged, Exception? Failure)> HandOverAsync(IReadOnlyList<EtlMessage> messages, CancellationToken stop)
    {
        try
        {
            return (await SendAsync(messages, stop).ConfigureAwait(false), null);
        }
        catch (Exception ex) when (!stop.IsCancellationRequested && ex is not OutOfMemoryException)
        {
            return (Task.CompletedTask, ex);
        }
    }

    /// <summary>Closes the destination; the next send connects a new one. Acknowledgements still awaited fail.</summary>
    public async Task CloseAsync()
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_destination is { } destination)
            {
                _destination = null;
                await destination.DisposeAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            _gate.Release();
        }
    }
}
