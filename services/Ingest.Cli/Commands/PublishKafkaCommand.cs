using System.CommandLine;
using Ingest.Cli.Publishing;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest publish kafka</c>.</summary>
internal sealed class PublishKafkaCommand : Command
{
    private readonly PublishOptions _publish = new();

    private readonly Option<string> _bootstrap = new Option<string>("--bootstrap")
    {
        Description = "The Kafka bootstrap servers, comma-separated.",
        HelpName = "HOST:PORT",
        Required = true,
    }.NotEmpty();

    private readonly Option<string> _topic = new Option<string>("--topic")
    {
        Description = "The topic to publish to. Each message's key is the document id.",
        HelpName = "TOPIC",
        Required = true,
    }.NotEmpty();

    private readonly Option<int> _timeout = new Option<int>("--timeout")
    {
        Description = "Seconds to wait for each document's delivery before failing.",
        HelpName = "SECONDS",
        DefaultValueFactory = _ => 30,
    }.Positive();

    public PublishKafkaCommand()
        : base("kafka", "Publish JSON documents to a Kafka topic (idempotent producer, acks=all).")
    {
        Add(_bootstrap);
        Add(_topic);
        _publish.AddTo(this);
        Add(_timeout);
        SetAction(RunAsync);
    }

    private Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var publisher = new KafkaPublisher(
            parseResult.GetRequiredValue(_bootstrap),
            parseResult.GetRequiredValue(_topic),
            TimeSpan.FromSeconds(parseResult.GetValue(_timeout)));
        return PublishCommand.RunAsync(parseResult, _publish, publisher, cancellationToken);
    }
}
