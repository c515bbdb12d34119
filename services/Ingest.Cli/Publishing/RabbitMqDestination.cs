namespace Ingest.Cli.Publishing;

/// <summary>An exchange and routing key to publish to; a queue is the default exchange with the queue's name.</summary>
internal sealed record RabbitMqDestination(string Exchange, string RoutingKey)
{
    public static RabbitMqDestination Queue(string queue) => new(string.Empty, queue);

    public bool IsQueue => Exchange.Length == 0;

    public override string ToString() => IsQueue
        ? $"rabbitmq queue {RoutingKey}"
        : $"rabbitmq exchange {Exchange} (routing key '{RoutingKey}')";
}
