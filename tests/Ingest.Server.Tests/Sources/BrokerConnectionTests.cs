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
        var source = RabbitMqEndpoint.CreateFactory("amqps://user:pw@mq.example.com:5671/v", null, "ingest:orders", automaticRecovery: true);
        var publisher = RabbitMqEndpoint.CreateFactory("amqp://user:pw@mq.example.com/", null, "ingest-etl:out", automaticRecovery: false);

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

    [Fact]
    public void Rabbitmq_tls_settings_need_amqps_an_existing_pem_ca_and_may_name_the_server()
    {
        using var directory = new TestDirectory();
        var notPem = Path.Combine(directory.Path, "ca.txt");
        File.WriteAllText(notPem, "not a certificate");
        var errors = new List<string>();

        RabbitMqEndpoint.Validate("amqp://u:p@h/", new RabbitMqTlsSettings { CaPath = Path.Combine(directory.Path, "missing.pem") }, "A", errors);
        RabbitMqEndpoint.Validate("amqps://u:p@h/", new RabbitMqTlsSettings { CaPath = notPem, ServerName = "" }, "B", errors);
        var factory = RabbitMqEndpoint.CreateFactory("amqps://u:p@10.0.0.5/", new RabbitMqTlsSettings { ServerName = "mq.internal" }, "x", automaticRecovery: false);

        Assert.Equal(
        [
            "A:Tls applies to amqps:// URIs only; use amqps:// in A:Uri (usually port 5671) or remove A:Tls.",
            $"A:Tls:CaPath '{Path.Combine(directory.Path, "missing.pem")}' does not exist (a PEM file with the CA certificate that signed the broker's).",
            $"B:Tls:CaPath '{notPem}' holds no PEM certificate (-----BEGIN CERTIFICATE-----).",
            "B:Tls:ServerName must not be empty (leave it out to check the URI's host).",
        ], errors);
        Assert.Equal("mq.internal", factory.Ssl.ServerName);
    }

    [Fact]
    public void Kafka_secrets_are_redacted_and_credential_errors_name_the_user_and_the_setting_to_fix()
    {
        var settings = new Dictionary<string, string>
        {
            ["SASL.USERNAME"] = "etl", ["sasl.mechanism"] = "SCRAM-SHA-512", ["ssl.key.pem"] = "-----BEGIN PRIVATE KEY-----",
            ["sasl.oauthbearer.config"] = "clientSecret=x", ["ssl.ca.location"] = "/etc/ca.pem",
        };

        var redacted = KafkaClientSettings.Redact(settings);
        var login = KafkaClientError.Describe(ErrorCode.Local_Authentication, "SASL authentication error: invalid credentials", settings);
        var tls = KafkaClientError.Describe(ErrorCode.Local_Ssl, "SSL handshake failed: certificate verify failed", settings);

        Assert.Equal(["etl", "SCRAM-SHA-512", "***", "***", "/etc/ca.pem"], redacted.Values);
        Assert.Equal("authentication failed for user 'etl' (SASL SCRAM-SHA-512): the broker refused the user name or password; check sasl.username and sasl.password. librdkafka: SASL authentication error: invalid credentials", login);
        Assert.StartsWith("the broker's certificate is not trusted: set ssl.ca.location to the PEM file of the CA that signed it (ssl.ca.location is '/etc/ca.pem')", tls, StringComparison.Ordinal);
        Assert.Equal("2/2 brokers are down", KafkaClientError.Describe(ErrorCode.Local_AllBrokersDown, "2/2 brokers are down", settings));
    }

    [Fact]
    public void A_kafka_credential_error_is_not_hidden_by_the_brokers_down_that_follows_it_until_a_broker_is_up()
    {
        var status = new Ingest.Server.Sources.Kafka.KafkaConnectionStatus();

        status.RecordClientError("authentication failed for user 'x'", credential: true);
        status.RecordClientError("1/1 brokers are down");
        var kept = status.Error;
        status.RecordStatistics("""{"brokers":{"b1":{"state":"UP"}}}""");
        status.RecordClientError("1/1 brokers are down");

        Assert.Equal("authentication failed for user 'x'", kept);
        Assert.Equal("1/1 brokers are down", status.Error);
    }
}
