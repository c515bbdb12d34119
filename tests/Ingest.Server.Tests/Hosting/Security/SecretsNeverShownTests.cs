using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Text;
using Ingest.Contracts.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Sources;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging;

namespace Ingest.Server.Tests.Hosting.Security;

/// <summary>
/// Runs every feature that touches a secret, with distinctive secrets set (API keys, a Kafka SASL password, a
/// RabbitMQ password, an ETL secret reference), failures included, then greps everything the server let out
/// (every log line at every level, every span's name and tags, /metrics, /stats, /health, the ETL views and
/// errors, each error answer, a backup) for each secret.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class SecretsNeverShownTests(BrokerFixture brokers)
{
    private const string AdminKey = "admin-S3CR3T-key-9f8e7d6c5b";
    private const string ReadKey = "read-S3CR3T-key-1a2b3c4d5e";
    private const string KafkaPassword = "kafka-S3CR3T-pw-77aa88bb";
    private const string RabbitPassword = "rabbit-S3CR3T-pw-33cc44dd";
    private const string EtlPassword = "etl-S3CR3T-pw-55ee66ff";

    private static readonly string[] Secrets = [AdminKey, ReadKey, KafkaPassword, RabbitPassword, EtlPassword, "S3CR3T"];

    [Fact]
    public async Task No_secret_appears_in_logs_spans_metrics_stats_health_errors_or_backups()
    {
        var secure = SecureBrokers.FromEnvironment();
        var kafka = await brokers.GetKafkaAsync();
        var rabbit = await brokers.GetRabbitMqAsync();
        var topic = KafkaTestKit.NewName("secrets");
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        var seen = new StringBuilder();
        var spans = new ConcurrentQueue<string>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = static _ => true,
            Sample = static (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity => spans.Enqueue($"{activity.DisplayName} {string.Join(' ', activity.TagObjects.Select(static t => $"{t.Key}={t.Value}"))} {string.Join(' ', activity.Events.Select(static e => e.Name))}"),
        };
        ActivitySource.AddActivityListener(listener);
        var logs = new RecordedLogs();

        var rabbitWithWrongPassword = new UriBuilder(rabbit.Uri) { Password = RabbitPassword }.Uri.ToString();
        await using (var server = await ApiTestServer.StartAsync(
            logs,
            [
                "--Logging:LogLevel:Default=Trace",
                "--Ingest:ApiKeys:0:Name=ops", "--Ingest:ApiKeys:0:Scopes:0=admin", $"--Ingest:ApiKeys:0:Key={AdminKey}",
                "--Ingest:ApiKeys:1:Name=grafana", "--Ingest:ApiKeys:1:Scopes:0=read", $"--Ingest:ApiKeys:1:KeyHash={ApiKeyHash.Format(ReadKey)}",
                $"--Ingest:Secrets:etl={EtlPassword}",
                // A Kafka source that offers SCRAM to a broker that speaks none, and a RabbitMQ source with a wrong password: both fail to connect.
                "--Ingest:Sources:Kafka:0:Name=sasl",
                $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
                $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
                "--Ingest:Sources:Kafka:0:Settings:security.protocol=SASL_PLAINTEXT",
                "--Ingest:Sources:Kafka:0:Settings:sasl.mechanism=SCRAM-SHA-256",
                "--Ingest:Sources:Kafka:0:Settings:sasl.username=ingest",
                $"--Ingest:Sources:Kafka:0:Settings:sasl.password={KafkaPassword}",
                // And the same through the secure listener with the real SCRAM password, which works.
                "--Ingest:Sources:Kafka:1:Name=sasl-ssl",
                $"--Ingest:Sources:Kafka:1:BootstrapServers={secure.KafkaSaslSsl}",
                $"--Ingest:Sources:Kafka:1:Topics:0={topic}",
                .. secure.KafkaSaslSettings().Select(static s => $"--Ingest:Sources:Kafka:1:Settings:{s.Key}={s.Value}"),
                $"--Ingest:Secrets:scram={secure.ScramPassword}",
                "--Ingest:Sources:RabbitMq:0:Name=wrong-password",
                $"--Ingest:Sources:RabbitMq:0:Uri={rabbitWithWrongPassword}",
                "--Ingest:Sources:RabbitMq:0:Queues:0=secrets-test",
            ]))
        {
            var client = server.Client;
            async Task<string> SendAsync(HttpMethod method, string path, string? key, string? body = null)
            {
                using var request = new HttpRequestMessage(method, ApiTestServer.Relative(path));
                if (key is not null)
                {
                    request.Headers.Add(ApiKeyMiddleware.HeaderName, key);
                }

                if (body is not null)
                {
                    request.Content = ApiTestServer.Json(body);
                }

                using var response = await client.SendAsync(request);
                var text = await response.Content.ReadAsStringAsync();
                seen.Append(method).Append(' ').Append(path).Append(' ').Append((int)response.StatusCode).Append(' ').AppendLine(text);
                return text;
            }

            // Keys: wrong, missing, a read key where admin is needed, then real work with each.
            await SendAsync(HttpMethod.Get, "/stats", AdminKey + "x");
            await SendAsync(HttpMethod.Get, "/stats", null);
            await SendAsync(HttpMethod.Delete, "/indexes/Orders/ByTotal", ReadKey);
            await SendAsync(HttpMethod.Put, "/docs/orders/1?collection=Orders", AdminKey, """{"Total":5}""");
            await SendAsync(HttpMethod.Get, "/queries?q=from%20Orders%20where%20Total%20%3E%201", ReadKey);
            await SendAsync(HttpMethod.Get, "/queries?q=from%20Orders%20where", ReadKey);

            // ETL: a secret given as a value is refused; one given by reference is used (and fails: the broker speaks no SASL).
            await SendAsync(HttpMethod.Put, "/etl/literal", AdminKey, $$$$"""{"collections":["Orders"],"kafka":{"bootstrapServers":"{{{{kafka.BootstrapServers}}}}","topic":"{{{{topic}}}}","settings":{"security.protocol":"SASL_PLAINTEXT","sasl.mechanism":"SCRAM-SHA-256","sasl.username":"etl","sasl.password":"{{{{EtlPassword}}}}"}}}""");
            await SendAsync(HttpMethod.Put, "/etl/by-reference", AdminKey, $$$$"""{"collections":["Orders"],"kafka":{"bootstrapServers":"{{{{kafka.BootstrapServers}}}}","topic":"{{{{topic}}}}","settings":{"security.protocol":"SASL_PLAINTEXT","sasl.mechanism":"SCRAM-SHA-256","sasl.username":"etl","sasl.password":"secret:etl","message.timeout.ms":"3000"}}}""");

            var saslSettings = string.Join(',', secure.KafkaSaslSettings("secret:scram").Select(static s => $"\"{s.Key}\":\"{s.Value.Replace("\\", "\\\\", StringComparison.Ordinal)}\""));
            var saslTask = "{\"collections\":[\"Orders\"],\"kafka\":{\"bootstrapServers\":\"" + secure.KafkaSaslSsl + "\",\"topic\":\"" + topic + "\",\"settings\":{" + saslSettings + "}}}";
            await SendAsync(HttpMethod.Put, "/etl/sasl-ssl", AdminKey, saslTask);

            // Let the sources and the task fail a few times, then read every view.
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (DateTime.UtcNow < deadline && !(await SendAsync(HttpMethod.Get, "/etl/by-reference", ReadKey)).Contains("\"lastError\":\"", StringComparison.Ordinal))
            {
                await Task.Delay(500);
            }

            // The task through SASL_SSL with the referenced password delivers the document.
            deadline = DateTime.UtcNow.AddSeconds(30);
            while (DateTime.UtcNow < deadline && !(await SendAsync(HttpMethod.Get, "/etl/sasl-ssl", ReadKey)).Contains("\"messagesSent\":1", StringComparison.Ordinal))
            {
                await Task.Delay(500);
            }

            Assert.Contains("\"messagesSent\":1", await SendAsync(HttpMethod.Get, "/etl/sasl-ssl", ReadKey), StringComparison.Ordinal);
            await Task.Delay(2_000);
            await SendAsync(HttpMethod.Get, "/health", ReadKey);
            await SendAsync(HttpMethod.Get, "/stats", ReadKey);
            await SendAsync(HttpMethod.Get, "/metrics", null);
            await SendAsync(HttpMethod.Get, "/etl", ReadKey);
            await SendAsync(HttpMethod.Get, "/etl/by-reference/errors", ReadKey);
            await SendAsync(HttpMethod.Get, "/indexes", ReadKey);
            using var backupRequest = new HttpRequestMessage(HttpMethod.Post, ApiTestServer.Relative("/admin/backup"));
            backupRequest.Headers.Add(ApiKeyMiddleware.HeaderName, AdminKey);
            using var backup = await client.SendAsync(backupRequest);
            Assert.Equal(HttpStatusCode.OK, backup.StatusCode);
            seen.AppendLine(Encoding.Latin1.GetString(await backup.Content.ReadAsByteArrayAsync()));
            Assert.Contains("secret:etl", seen.ToString(), StringComparison.Ordinal);
        }

        ActivitySource.AddActivityListener(new ActivityListener { ShouldListenTo = static _ => false });
        var everything = new StringBuilder(seen.ToString()).AppendLine(logs.Dump()).AppendJoin('\n', spans).ToString();
        var leaks = new List<string>();
        foreach (var secret in Secrets.Append(secure.ScramPassword))
        {
            var at = everything.IndexOf(secret, StringComparison.Ordinal);
            if (at >= 0)
            {
                leaks.Add($"'{secret}' appears: ...{everything.Substring(Math.Max(0, at - 300), Math.Min(600, everything.Length - Math.Max(0, at - 300)))}...");
            }
        }

        Assert.True(leaks.Count == 0, string.Join("\n\n", leaks));

        // The grep saw what it should have: the failures were logged and the admin actions named.
        Assert.NotEmpty(logs.Matching("Admin action PUT /etl/by-reference by API key 'ops'"));
        Assert.NotEmpty(spans);
        Assert.Contains("wrong-password", everything, StringComparison.Ordinal);
        Assert.True(logs.Matching("wrong-password").Any(static l => l.Level >= LogLevel.Warning), logs.Dump());
    }
}
