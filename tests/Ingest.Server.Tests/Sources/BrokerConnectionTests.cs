using Confluent.Kafka;
using Ingest.Server.Brokers;

namespace Ingest.Server.Tests.Sources;

/// <summary>The broker connection settings shared by sources and ETL destinations.</summary>
public sealed class BrokerConnectionTests
{
    [Fact]
    public void Kafka_settings_pass_through_and_the_bootstrap_servers_set_by_the_owner_win()
    {
        var settings = new Dictionary<string, string> { ["security.protocol"] = "SASL_SSL", ["sasl.password"] = "secret", ["bootstrap.servers"] = "wrong:1" };

        var config = KafkaClientSettings.Apply(new ConsumerConfig { FetchWaitMaxMs = 100 }, "broker:9092", settings);

        Assert.Equal("SASL_SSL", config.Get("security.protocol"));
        Assert.Equal("broker:9092", config.BootstrapServers);
        Assert.Equal(100, config.FetchWaitMaxMs);
        Assert.Equal("***", KafkaClientSettings.Redact(settings)["sasl.password"]);
        Assert.Equal("SASL_SSL", KafkaClientSettings.Redact(settings)["security.protocol"]);
    }

    [Fact]
    public void Kafka_validation_names_missing_servers_and_reserved_settings()
    {
        var errors = new List<string>();

        KafkaClientSettings.Validate(" ", new Dictionary<string, string> { ["ACKS"] = "1" }, ["acks"], "P", "it is ours.", errors);

        Assert.Equal(["P:BootstrapServers is required.", "P:Settings:ACKS cannot be set: it is ours."], errors);
    }

    [Fact]
    public void A_rabbitmq_factory_takes_tls_from_the_scheme_and_recovery_from_its_owner()
    {
        var source = RabbitMqEndpoint.CreateFactory("amqps://user:pw@mq.example.com:5671/v", "ingest:orders", automaticRecovery: true);
        var publisher = RabbitMqEndpoint.CreateFactory("amqp://user:pw@mq.example.com/", "ingest-etl:out", automaticRecovery: false);

        Assert.True(source.Ssl.Enabled);
        Assert.Equal("mq.example.com", source.Ssl.ServerName);
        Assert.True(source.AutomaticRecoveryEnabled);
        Assert.True(source.TopologyRecoveryEnabled);
        Assert.Equal(TimeSpan.FromSeconds(2), source.NetworkRecoveryInterval);
        Assert.StartsWith("ingest:orders@", source.ClientProvidedName, StringComparison.Ordinal);
        Assert.False(publisher.Ssl.Enabled);
        Assert.False(publisher.AutomaticRecoveryEnabled);
        Assert.Equal("amqp://user:***@mq.example.com/", RabbitMqEndpoint.Redact("amqp://user:pw@mq.example.com/"));
    }

    [Fact]
    public void A_rabbitmq_uri_is_required_and_must_be_amqp_without_showing_its_password()
    {
        var errors = new List<string>();

        RabbitMqEndpoint.Validate(null, "A", errors);
        RabbitMqEndpoint.Validate("http://user:secret@host/", "B", errors);

        Assert.Equal(["A:Uri is required.", "B:Uri must be an amqp:// or amqps:// URI (was 'http://user:***@host/')."], errors);
    }
}
