using System.CommandLine;
using System.CommandLine.Parsing;
using Ingest.Cli.Publishing;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest publish rabbitmq</c>.</summary>
internal sealed class PublishRabbitMqCommand : Command
{
    private readonly PublishOptions _publish = new();

    private readonly Option<Uri> _uri = new("--uri")
    {
        Description = "The broker, as an AMQP URI: amqp://user:password@host:5672/vhost.",
        HelpName = "URI",
        Required = true,
        CustomParser = result => OptionValidation.ParseUri(result, "amqp", "amqps"),
    };

    private readonly Option<string?> _queue = new("--queue")
    {
        Description = "The queue to publish to (through the default exchange). It must exist.",
        HelpName = "QUEUE",
    };

    private readonly Option<string?> _exchange = new("--exchange")
    {
        Description = "The exchange to publish to, instead of a queue. It must exist.",
        HelpName = "EXCHANGE",
    };

    private readonly Option<string?> _routingKey = new("--routing-key")
    {
        Description = "The routing key for --exchange (default: empty).",
        HelpName = "KEY",
    };

    public PublishRabbitMqCommand()
        : base("rabbitmq", "Publish JSON documents to a RabbitMQ queue or exchange (persistent, with publisher confirms).")
    {
        Add(_uri);
        Add(_queue);
        Add(_exchange);
        Add(_routingKey);
        _publish.AddTo(this);
        Validators.Add(Validate);
        SetAction(RunAsync);
    }

    private void Validate(CommandResult result)
    {
        if (result.MissesRequiredOptions())
        {
            return;
        }

        var queue = result.GetValue(_queue);
        var exchange = result.GetValue(_exchange);
        if ((queue is null) == (exchange is null))
        {
            result.AddError("give either --queue QUEUE or --exchange EXCHANGE [--routing-key KEY]");
        }
        else if (queue is { Length: 0 } || exchange is { Length: 0 })
        {
            // The default exchange "" only routes to queues by name: that is what --queue is for.
            result.AddError(queue is null ? "--exchange must not be empty; use --queue to publish to a queue" : "--queue must not be empty");
        }

        if (queue is not null && result.GetValue(_routingKey) is not null)
        {
            result.AddError("--routing-key goes with --exchange; a --queue is its own routing key");
        }
    }

    private Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var destination = parseResult.GetValue(_queue) is { } queue
            ? RabbitMqDestination.Queue(queue)
            : new RabbitMqDestination(parseResult.GetValue(_exchange)!, parseResult.GetValue(_routingKey) ?? string.Empty);
        var publisher = new RabbitMqPublisher(parseResult.GetRequiredValue(_uri), destination);
        return PublishCommand.RunAsync(parseResult, _publish, publisher, cancellationToken);
    }
}
