using System.Net;
using Xunit.Abstractions;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Brokers;
using Ingest.Server.Tests.Etl;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Sources;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Brokers;

/// <summary>
/// Sources and ETL tasks through the brokers' TLS and SASL listeners (<c>brokers.sh up --secure</c>), on the real
/// server: they move messages, and a wrong password or an untrusted certificate shows in /health and the log as
/// what to fix, without the password.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class BrokerTlsTests(ITestOutputHelper output) : IDisposable
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);
    private readonly SecureBrokers _brokers = SecureBrokers.FromEnvironment();
    private readonly TestDirectory _data = new();
    private readonly RecordedLogs _logs = new();

    public void Dispose() => _data.Dispose();

    [Fact]
    public async Task A_kafka_source_consumes_through_sasl_ssl_with_scram()
    {
        var topic = NewName("tls-source");
        using (var producer = new ProducerBuilder<byte[]?, byte[]?>(new ProducerConfig(_brokers.KafkaSaslSettings()) { BootstrapServers = _brokers.KafkaSaslSsl })
            .SetLogHandler(static (_, _) => { }).Build())
        {
            for (var i = 0; i < 20; i++)
            {
                await producer.ProduceAsync(topic, Record($"k{i}", $$"""{"N":{{i}}}"""));
            }
        }

        await using var server = await StartAsync(
        [
            "--Ingest:Sources:Kafka:0:Name=secure-kafka",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={_brokers.KafkaSaslSsl}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("tls-group")}",
            .. Settings("Ingest:Sources:Kafka:0:Settings", _brokers.KafkaSaslSettings()),
        ]);

        await WaitUntilAsync(() => Store(server).LastEtag == 20, Patience, $"20 messages stored through SASL_SSL; log:\n{_logs.Dump()}");
        var health = await HealthAsync(server, HttpStatusCode.OK);
        Assert.True(Entry(health, "sources", "secure-kafka").GetProperty("connected").GetBoolean(), health.GetRawText());
        AssertNoSecret(health.GetRawText(), _brokers.ScramPassword);
    }

    [Fact]
    public async Task An_etl_task_produces_to_kafka_through_sasl_ssl_with_scram()
    {
        var topic = NewName("tls-etl");
        await using var server = await StartAsync(
        [
            "--Ingest:Etl:0:Name=secure-out",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={_brokers.KafkaSaslSsl}",
            $"--Ingest:Etl:0:Kafka:Topic={topic}",
            .. Settings("Ingest:Etl:0:Kafka:Settings", _brokers.KafkaSaslSettings()),
        ]);
        await Store(server).WriteAsync(EtlTestKit.Orders(1, 5));

        var config = new ConsumerConfig(_brokers.KafkaSaslSettings())
        {
            BootstrapServers = _brokers.KafkaSaslSsl, GroupId = NewName("tls-read"), AutoOffsetReset = AutoOffsetReset.Earliest,
        };
        using var consumer = new ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        consumer.Subscribe(topic);
        var keys = new HashSet<string>();
        var deadline = DateTime.UtcNow + Patience;
        while (keys.Count < 5 && DateTime.UtcNow < deadline)
        {
            try
            {
                if (consumer.Consume(TimeSpan.FromMilliseconds(500)) is { Message: { } message })
                {
                    keys.Add(Encoding.UTF8.GetString(message.Key));
                }
            }
            catch (ConsumeException ex) when (ex.Error.Code == ErrorCode.UnknownTopicOrPart)
            {
                // The ETL task creates the topic with its first message; until then the subscription reports it missing.
            }
        }

        consumer.Close();
        Assert.True(keys.SetEquals(Enumerable.Range(1, 5).Select(static i => $"orders/{i}")), $"read {string.Join(", ", keys)}; log:\n{_logs.Dump()}");
        var etl = await GetJsonAsync(server, "/etl/secure-out");
        AssertNoSecret(etl.GetRawText(), _brokers.ScramPassword);
        Assert.Contains("\"sasl.password\":\"***\"", etl.GetRawText(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_rabbitmq_source_consumes_through_tls_trusting_a_private_ca()
    {
        var queue = NewName("tls-source");
        await using (var connection = await TestFactory().CreateConnectionAsync())
        await using (var channel = await connection.CreateChannelAsync(new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true)))
        {
            await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
            for (var i = 0; i < 10; i++)
            {
                await channel.BasicPublishAsync(string.Empty, queue, mandatory: true, new BasicProperties { MessageId = $"m{i}" }, Encoding.UTF8.GetBytes($$"""{"N":{{i}}}"""));
            }
        }

        await using var server = await StartAsync(
            "--Ingest:Sources:RabbitMq:0:Name=secure-rabbit",
            $"--Ingest:Sources:RabbitMq:0:Uri={_brokers.RabbitMqTls}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            $"--Ingest:Sources:RabbitMq:0:Tls:CaPath={_brokers.CaPath}");

        await WaitUntilAsync(() => Store(server).LastEtag == 10, Patience, $"10 messages stored through TLS; log:\n{_logs.Dump()}");
        var health = await HealthAsync(server, HttpStatusCode.OK);
        Assert.True(Entry(health, "sources", "secure-rabbit").GetProperty("connected").GetBoolean(), health.GetRawText());
    }

    [Fact]
    public async Task An_etl_task_publishes_to_rabbitmq_through_tls_trusting_a_private_ca()
    {
        var queue = NewName("tls-etl");
        await using var connection = await TestFactory().CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false);
        await channel.QueueBindAsync(queue, "amq.direct", queue);
        await using var server = await StartAsync(
            "--Ingest:Etl:0:Name=secure-rabbit-out",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:RabbitMq:Uri={_brokers.RabbitMqTls}",
            "--Ingest:Etl:0:RabbitMq:Exchange=amq.direct",
            $"--Ingest:Etl:0:RabbitMq:RoutingKey={queue}",
            $"--Ingest:Etl:0:RabbitMq:Tls:CaPath={_brokers.CaPath}");
        await Store(server).WriteAsync(EtlTestKit.Orders(1, 5));

        var ids = new HashSet<string>();
        var deadline = DateTime.UtcNow + Patience;
        while (ids.Count < 5 && DateTime.UtcNow < deadline)
        {
            if (await channel.BasicGetAsync(queue, autoAck: true) is { } message)
            {
                ids.Add(Encoding.UTF8.GetString(message.Body.Span));
            }
            else
            {
                await Task.Delay(100);
            }
        }

        Assert.True(ids.Count == 5, $"{ids.Count} of 5 messages arrived; log:\n{_logs.Dump()}");
        await channel.QueueDeleteAsync(queue);
    }

    [Fact]
    public async Task A_wrong_password_shows_as_an_authentication_failure_in_health_and_the_log_without_the_password()
    {
        const string WrongPassword = "not-the-password-7f3e9a";
        var topic = NewName("tls-wrong");
        await using var server = await StartAsync(
        [
            "--Ingest:Sources:Kafka:0:Name=wrong-password",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={_brokers.KafkaSaslSsl}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            .. Settings("Ingest:Sources:Kafka:0:Settings", _brokers.KafkaSaslSettings(WrongPassword)),
            "--Ingest:Etl:0:Name=wrong-password-out",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={_brokers.KafkaSaslSsl}",
            $"--Ingest:Etl:0:Kafka:Topic={topic}",
            .. Settings("Ingest:Etl:0:Kafka:Settings", _brokers.KafkaSaslSettings(WrongPassword)),
            "--Ingest:Sources:RabbitMq:0:Name=wrong-password-rabbit",
            $"--Ingest:Sources:RabbitMq:0:Uri={new UriBuilder(_brokers.RabbitMqTls) { Password = WrongPassword }.Uri}",
            "--Ingest:Sources:RabbitMq:0:Queues:0=wrong-password",
            $"--Ingest:Sources:RabbitMq:0:Tls:CaPath={_brokers.CaPath}",
        ]);
        await Store(server).WriteAsync(EtlTestKit.Orders(1, 3));

        var expected = $"authentication failed for user '{_brokers.ScramUser}' (SASL SCRAM-SHA-256)";
        var health = await WaitForHealthAsync(
            server, body => Errors(body).Count(e => e.Contains(expected, StringComparison.Ordinal)) == 2 && Errors(body).Count(e => e.Contains("authentication failed", StringComparison.Ordinal)) == 3);
        output.WriteLine(health.GetRawText());

        Assert.False(Entry(health, "sources", "wrong-password").GetProperty("connected").GetBoolean());
        Assert.Equal("retrying", Entry(health, "etl", "wrong-password-out").GetProperty("state").GetString());
        Assert.StartsWith(
            $"authentication failed for user '{_brokers.RabbitMqTls.UserInfo.Split(':')[0]}': RabbitMQ refused the user name or password in the URI",
            Entry(health, "sources", "wrong-password-rabbit").GetProperty("error").GetString(), StringComparison.Ordinal);
        Assert.NotEmpty(_logs.Matching(expected));
        Assert.NotEmpty(_logs.Matching("RabbitMQ refused the user name or password"));
        AssertNoSecret(health.GetRawText() + _logs.Dump(), WrongPassword);
        AssertNoSecret(health.GetRawText() + _logs.Dump(), _brokers.ScramPassword);
    }

    [Fact]
    public async Task An_untrusted_broker_certificate_shows_as_such_in_health_and_the_log_for_kafka_and_rabbitmq()
    {
        // A CA of the test's own, which did not sign either broker's certificate.
        var otherCa = Path.Combine(_data.Path, "other-ca.pem");
        using (var key = RSA.Create(2048))
        {
            var request = new CertificateRequest("CN=Not the brokers' CA", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
            request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
            using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));
            await File.WriteAllTextAsync(otherCa, certificate.ExportCertificatePem());
        }

        // TLS fails before any login, so the URI's password is never sent: it only has to stay out of the output.
        const string UriPassword = "uri-password-2b8d41";
        var rabbit = new UriBuilder(_brokers.RabbitMqTls) { Password = UriPassword }.Uri;
        var topic = NewName("tls-untrusted");
        await using var server = await StartAsync(
            "--Ingest:Sources:Kafka:0:Name=untrusted-kafka",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={_brokers.KafkaSsl}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            "--Ingest:Sources:Kafka:0:Settings:security.protocol=SSL",
            $"--Ingest:Sources:Kafka:0:Settings:ssl.ca.location={otherCa}",
            "--Ingest:Sources:RabbitMq:0:Name=untrusted-rabbit",
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit}",
            "--Ingest:Sources:RabbitMq:0:Queues:0=untrusted",
            $"--Ingest:Sources:RabbitMq:0:Tls:CaPath={otherCa}",
            "--Ingest:Etl:0:Name=untrusted-out",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:RabbitMq:Uri={rabbit}",
            "--Ingest:Etl:0:RabbitMq:Exchange=amq.direct",
            $"--Ingest:Etl:0:RabbitMq:Tls:CaPath={otherCa}");
        await Store(server).WriteAsync(EtlTestKit.Orders(1, 3));

        var health = await WaitForHealthAsync(server, body => Errors(body).Count(e => e.Contains("not trusted", StringComparison.Ordinal)) == 3);
        output.WriteLine(health.GetRawText());

        var kafka = Entry(health, "sources", "untrusted-kafka").GetProperty("error").GetString();
        Assert.Contains("the broker's certificate is not trusted: set ssl.ca.location to the PEM file of the CA that signed it", kafka, StringComparison.Ordinal);
        Assert.Contains(otherCa, kafka, StringComparison.Ordinal);
        var rabbitError = Entry(health, "sources", "untrusted-rabbit").GetProperty("error").GetString();
        Assert.Contains("TLS handshake failed: The broker's certificate ('CN=localhost', issued by 'CN=Ingest test brokers CA') is not trusted", rabbitError, StringComparison.Ordinal);
        Assert.Contains($"Tls:CaPath '{otherCa}'", rabbitError, StringComparison.Ordinal);
        Assert.Contains("is not trusted", Entry(health, "etl", "untrusted-out").GetProperty("error").GetString(), StringComparison.Ordinal);
        Assert.NotEmpty(_logs.Matching("the broker's certificate is not trusted"));
        Assert.NotEmpty(_logs.Matching("Tls:CaPath"));
        AssertNoSecret(health.GetRawText() + _logs.Dump(), UriPassword);
    }

    private async Task<RunningServer> StartAsync(params string[] arguments) => await RunningServer.StartAsync(_data.Path, _logs, arguments);

    private ConnectionFactory TestFactory() =>
        RabbitMqEndpoint.CreateFactory(_brokers.RabbitMqTls.ToString(), new RabbitMqTlsSettings { CaPath = _brokers.CaPath }, "tls-test", automaticRecovery: false);

    private static DocumentStore Store(RunningServer server) => server.Services.GetRequiredService<DocumentStore>();

    private static IEnumerable<string> Settings(string prefix, Dictionary<string, string> settings) =>
        settings.Select(s => $"--{prefix}:{s.Key}={s.Value}");

    private static async Task<JsonElement> GetJsonAsync(RunningServer server, string path)
    {
        using var response = await server.Client.GetAsync(new Uri(path, UriKind.Relative));
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return document.RootElement.Clone();
    }

    private static async Task<JsonElement> HealthAsync(RunningServer server, HttpStatusCode expected)
    {
        using var response = await server.Client.GetAsync(new Uri("/health", UriKind.Relative));
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == expected, $"expected {expected}: {text}");
        using var document = JsonDocument.Parse(text);
        return document.RootElement.Clone();
    }

    /// <summary>Polls /health (503 while unhealthy) until <paramref name="done"/> holds.</summary>
    private async Task<JsonElement> WaitForHealthAsync(RunningServer server, Func<JsonElement, bool> done)
    {
        var deadline = DateTime.UtcNow + Patience;
        JsonElement health;
        do
        {
            health = await HealthAsync(server, HttpStatusCode.ServiceUnavailable);
            if (done(health))
            {
                return health;
            }

            await Task.Delay(250);
        }
        while (DateTime.UtcNow < deadline);

        Assert.Fail($"/health did not show the expected errors within {Patience.TotalSeconds} s: {health.GetRawText()}\nlog:\n{_logs.Dump()}");
        return health;
    }

    private static IEnumerable<string> Errors(JsonElement health) =>
        health.GetProperty("sources").EnumerateArray().Concat(health.GetProperty("etl").EnumerateArray())
            .Select(static e => e.GetProperty("error").GetString() ?? string.Empty);

    private static JsonElement Entry(JsonElement health, string list, string name) =>
        health.GetProperty(list).EnumerateArray().Single(e => e.GetProperty("name").GetString() == name);

    private static void AssertNoSecret(string output, string secret) =>
        Assert.False(output.Contains(secret, StringComparison.Ordinal), "a password appears in the server's output");
}
