using Ingest.Server.Sources;

namespace Ingest.Server.Tests.Sources;

public sealed class SourcesOptionsTests
{
    [Fact]
    public void Valid_sources_have_no_errors()
    {
        var options = new SourcesOptions
        {
            Kafka = [new KafkaSourceOptions { BootstrapServers = "127.0.0.1:9092", Topics = ["orders"] }],
            RabbitMq = [new RabbitMqSourceOptions { Uri = "amqps://user:secret@mq.example.com/vhost", Queues = ["orders"] }],
        };

        Assert.Empty(options.Validate());
        Assert.Equal("kafka-0", options.Kafka[0].EffectiveName(0));
    }

    [Fact]
    public void Every_bad_setting_is_named()
    {
        var options = new SourcesOptions
        {
            Kafka =
            [
                new KafkaSourceOptions { Topics = [], Settings = new() { ["enable.auto.commit"] = "true" }, MaxBodyBytes = 0 },
            ],
            RabbitMq = [new RabbitMqSourceOptions { Uri = "http://user:secret@host/", Queues = [""], Prefetch = 0 }],
        };

        var errors = options.Validate();

        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:Kafka:0:BootstrapServers is required", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:Kafka:0:Topics must list", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:Kafka:0:Settings:enable.auto.commit cannot be set", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:Kafka:0:MaxBodyBytes must be > 0", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:RabbitMq:0:Uri must be an amqp:// or amqps:// URI", StringComparison.Ordinal));
        Assert.DoesNotContain(errors, e => e.Contains("secret", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:RabbitMq:0:Queues:0 is empty", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Sources:RabbitMq:0:Prefetch must be > 0", StringComparison.Ordinal));
    }

    [Fact]
    public void Source_names_must_be_unique_across_kinds()
    {
        var options = new SourcesOptions
        {
            Kafka = [new KafkaSourceOptions { Name = "orders", BootstrapServers = "b:9092", Topics = ["t"] }],
            RabbitMq = [new RabbitMqSourceOptions { Name = "Orders", Uri = "amqp://h/", Queues = ["q"] }],
        };

        var error = Assert.Single(options.Validate());
        Assert.StartsWith("Ingest:Sources:RabbitMq:0:Name 'Orders' is used by another source", error, StringComparison.Ordinal);
    }
}
