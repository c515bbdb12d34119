using System.Net;
using System.Text.Json;
using Ingest.Server.Hosting;
using Ingest.Server.Tests.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Etl;

[Collection(BrokerFixture.Collection)]
public sealed class EtlEndpointsTests(BrokerFixture brokers)
{
    [Fact]
    public async Task A_definition_whose_script_does_not_compile_is_refused_naming_the_problem()
    {
        await using var server = await ApiTestServer.StartAsync();

        using var response = await server.PutAsync("/etl/orders-out", """
            {"collections":["Orders"],"kafka":{"bootstrapServers":"127.0.0.1:9","topic":"t"},"script":"function transform(doc) { return {body: doc "}
            """);

        var detail = await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("definition:Script does not compile", detail, StringComparison.Ordinal);
        using var missing = await server.Client.GetAsync(ApiTestServer.Relative("/etl/orders-out"));
        await ApiTestServer.ReadProblemAsync(missing, HttpStatusCode.NotFound);
    }

    [Theory]
    [InlineData("/etl/orders-out", """{"collections":["Orders"]}""", "exactly one destination")]
    [InlineData("/etl/orders-out", """{"collections":[],"rabbitMq":{"uri":"http://x","exchange":"e"}}""", "Collections must list")]
    [InlineData("/etl/orders-out", """{"collections":["Orders"],"rabbitMq":{"uri":"http://x","exchange":"e"}}""", "amqp://")]
    [InlineData("/etl/orders-out", """{"collections":["Orders"],"kafka":{"topic":"t","settings":{"acks":"1"}}}""", "Settings:acks cannot be set")]
    [InlineData("/etl/orders-out", """{"collections":["Orders"],"kafka":{"bootstrapServers":"h:1","topic":"t","settings":{"dotnet.producer.enable.delivery.reports":"false"}}}""", "Settings:dotnet.producer.enable.delivery.reports cannot be set: it is a Confluent.Kafka .NET setting")]
    [InlineData("/etl/bad%20name", """{"collections":["Orders"],"kafka":{"bootstrapServers":"h:1","topic":"t"}}""", "Name must be")]
    [InlineData("/etl/orders-out", """{"collections":["Orders"],"kafka":"yes"}""", "not a valid task definition")]
    public async Task Invalid_definitions_are_refused_with_every_problem(string path, string body, string expected)
    {
        await using var server = await ApiTestServer.StartAsync();

        using var response = await server.PutAsync(path, body);

        Assert.Contains(expected, await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_task_defined_over_http_sends_reports_its_errors_retries_them_resets_and_is_deleted()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = KafkaTestKit.NewName("etl-http");
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await using var server = await ApiTestServer.StartAsync();
        await server.Store.WriteAsync(EtlTestKit.Orders(1, 5));
        var definition = $$"""
            {"collections":["Orders"],"kafka":{"bootstrapServers":"{{kafka.BootstrapServers}}","topic":"{{topic}}"},"source":"/ingest/test",
             "script":"function transform(doc) { if (doc.N === 2) throw new Error('no price'); return { body: doc }; }"}
            """;

        using (var created = await server.PutAsync("/etl/orders-out", definition))
        {
            var view = await ApiTestServer.ReadJsonAsync(created, HttpStatusCode.Created);
            Assert.Equal("http", view.GetProperty("origin").GetString());
            Assert.Equal(topic, view.GetProperty("definition").GetProperty("kafka").GetProperty("topic").GetString());
        }

        var status = await WaitCaughtUpAsync(server, "orders-out");
        Assert.Equal("Running", status.GetProperty("state").GetString());
        Assert.Equal(1, status.GetProperty("errors").GetInt32());
        Assert.Equal(0, status.GetProperty("lagChanges").GetInt64());
        Assert.Equal(4, EtlTestKit.ConsumeKafka(kafka.BootstrapServers, topic, 4).Count);

        var metrics = await server.Client.GetStringAsync(ApiTestServer.Relative("/metrics"));
        Assert.Matches(new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_errors\{[^}]*task="orders-out"[^}]*\} 1$"""), metrics);

        var errors = await server.GetJsonAsync("/etl/orders-out/errors");
        var error = Assert.Single(errors.GetProperty("items").EnumerateArray().ToList());
        Assert.Equal("orders/2", error.GetProperty("documentId").GetString());
        Assert.Contains("no price", error.GetProperty("error").GetString(), StringComparison.Ordinal);
        var errorId = error.GetProperty("id").GetInt64();

        using (var stillFailing = await server.Client.PostAsync(ApiTestServer.Relative($"/etl/orders-out/errors/{errorId}/retry"), null))
        {
            Assert.Contains("no price", await ApiTestServer.ReadProblemAsync(stillFailing, HttpStatusCode.UnprocessableEntity), StringComparison.Ordinal);
        }

        // Fixed script, same task: the error list is kept and the retry sends the document.
        using (var replaced = await server.PutAsync("/etl/orders-out", definition.Replace("throw new Error('no price')", "doc.Price = 0", StringComparison.Ordinal)))
        {
            await ApiTestServer.ReadJsonAsync(replaced, HttpStatusCode.OK);
        }

        using (var retried = await server.Client.PostAsync(ApiTestServer.Relative($"/etl/orders-out/errors/{errorId}/retry"), null))
        {
            var outcome = await ApiTestServer.ReadJsonAsync(retried, HttpStatusCode.OK);
            Assert.Equal(1, outcome.GetProperty("messagesSent").GetInt32());
        }

        Assert.Empty((await server.GetJsonAsync("/etl/orders-out/errors")).GetProperty("items").EnumerateArray());
        Assert.Contains(EtlTestKit.ConsumeKafka(kafka.BootstrapServers, topic, 5), static r => r.Event.Id == "orders/2@2");

        // Reset to etag 3: orders/4 and orders/5 go out again.
        using (var reset = await server.Client.PostAsync(ApiTestServer.Relative("/etl/orders-out/reset?etag=3"), null))
        {
            await ApiTestServer.ReadJsonAsync(reset, HttpStatusCode.OK);
        }

        await WaitCaughtUpAsync(server, "orders-out");
        var all = EtlTestKit.ConsumeKafka(kafka.BootstrapServers, topic, 7);
        Assert.Equal(2, all.Count(static r => r.Event.Id == "orders/5@5"));

        using (var deleted = await server.Client.DeleteAsync(ApiTestServer.Relative("/etl/orders-out")))
        {
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }

        Assert.DoesNotContain(server.Store.GetConsumers(), static c => c.Name == "etl/orders-out");
        using var gone = await server.Client.GetAsync(ApiTestServer.Relative("/etl/orders-out"));
        await ApiTestServer.ReadProblemAsync(gone, HttpStatusCode.NotFound);
    }

    [Fact]
    public async Task A_task_from_configuration_runs_and_cannot_be_replaced_or_deleted_over_http()
    {
        await using var server = await ApiTestServer.StartAsync(
            "--Ingest:Etl:0:Name=from-config", "--Ingest:Etl:0:Collections:0=Orders",
            "--Ingest:Etl:0:RabbitMq:Uri=amqp://guest:secret@127.0.0.1:1/", "--Ingest:Etl:0:RabbitMq:Exchange=x");

        var view = await server.GetJsonAsync("/etl/from-config");
        using var replaced = await server.PutAsync("/etl/from-config", """{"collections":["Orders"],"kafka":{"bootstrapServers":"h:1","topic":"t"}}""");
        using var deleted = await server.Client.DeleteAsync(ApiTestServer.Relative("/etl/from-config"));

        Assert.Equal("configuration", view.GetProperty("origin").GetString());
        Assert.DoesNotContain("secret", view.GetProperty("definition").GetProperty("rabbitMq").GetProperty("uri").GetString(), StringComparison.Ordinal);
        Assert.Contains("configuration", await ApiTestServer.ReadProblemAsync(replaced, HttpStatusCode.Conflict), StringComparison.Ordinal);
        Assert.Contains("configuration", await ApiTestServer.ReadProblemAsync(deleted, HttpStatusCode.Conflict), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Metrics_show_each_tasks_lag_errors_and_retrying_state()
    {
        await using var server = await StartRetryingTaskAsync();

        var text = await server.Client.GetStringAsync(ApiTestServer.Relative("/metrics"));

        Assert.Matches(new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_lag_changes\{[^}]*task="nowhere"[^}]*\} 2$"""), text);
        Assert.Matches(new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_retrying\{[^}]*task="nowhere"[^}]*\} 1$"""), text);
        Assert.Matches(new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_messages_sent_total\{[^}]*task="nowhere"[^}]*\} 0$"""), text);
        Assert.Matches(new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_errors\{[^}]*task="nowhere"[^}]*\} 0$"""), text);

        // Nothing was sent, so the lag in seconds is the age of the oldest change: above zero.
        var lagSeconds = new System.Text.RegularExpressions.Regex("""(?m)^ingest_etl_lag_seconds\{[^}]*task="nowhere"[^}]*\} (\S+)$""").Match(text);
        Assert.True(lagSeconds.Success, "ingest_etl_lag_seconds for task nowhere is missing from /metrics");
        Assert.True(double.Parse(lagSeconds.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) > 0, $"lag seconds {lagSeconds.Groups[1].Value}");
    }

    [Fact]
    public async Task A_retrying_task_makes_health_unhealthy_and_stats_show_its_lag_and_error()
    {
        await using var server = await StartRetryingTaskAsync();

        var health = await server.GetJsonAsync("/health", HttpStatusCode.ServiceUnavailable);
        var task = (await server.GetJsonAsync("/stats")).GetProperty("etl")[0];

        Assert.Equal("unhealthy", health.GetProperty("status").GetString());
        var etl = health.GetProperty("etl")[0];
        Assert.Equal("nowhere", etl.GetProperty("name").GetString());
        Assert.Equal("retrying", etl.GetProperty("state").GetString());
        Assert.False(string.IsNullOrEmpty(etl.GetProperty("error").GetString()));
        Assert.Equal("retrying", task.GetProperty("state").GetString());
        Assert.Equal(0, task.GetProperty("lastSentEtag").GetInt64());
        Assert.Equal(2, task.GetProperty("lagChanges").GetInt64());
        Assert.True(task.GetProperty("lagSeconds").GetDouble() >= 0);
        Assert.Equal(0, task.GetProperty("messagesSent").GetInt64());
        Assert.Equal(0, task.GetProperty("messagesPerSecond").GetDouble());
        Assert.False(string.IsNullOrEmpty(task.GetProperty("lastError").GetString()));
        Assert.Contains("x", task.GetProperty("destination").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_running_task_keeps_health_healthy_and_stats_show_its_progress_and_rate()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = KafkaTestKit.NewName("etl-stats");
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await using var server = await ApiTestServer.StartAsync(
            "--Ingest:Etl:0:Name=orders-out", "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}", $"--Ingest:Etl:0:Kafka:Topic={topic}",
            "--Ingest:Etl:0:Script=function transform(doc) { if (doc.N === 2) throw new Error('no price'); return { body: doc }; }");
        await server.Store.WriteAsync(EtlTestKit.Orders(1, 5));
        await WaitCaughtUpAsync(server, "orders-out");

        var health = await server.GetJsonAsync("/health");
        var task = (await server.GetJsonAsync("/stats")).GetProperty("etl")[0];

        var etl = health.GetProperty("etl")[0];
        Assert.Equal("running", etl.GetProperty("state").GetString());
        Assert.Equal(JsonValueKind.Null, etl.GetProperty("error").ValueKind);
        Assert.Equal("orders-out", task.GetProperty("name").GetString());
        Assert.Equal("running", task.GetProperty("state").GetString());
        Assert.Equal(server.Store.LastEtag, task.GetProperty("lastSentEtag").GetInt64());
        Assert.Equal(0, task.GetProperty("lagChanges").GetInt64());
        Assert.Equal(0, task.GetProperty("lagSeconds").GetDouble());
        Assert.Equal(4, task.GetProperty("messagesSent").GetInt64());
        Assert.True(task.GetProperty("messagesPerSecond").GetDouble() > 0);
        Assert.Equal(1, task.GetProperty("errors").GetInt32());
    }

    [Fact]
    public async Task A_task_defined_over_http_survives_a_server_restart()
    {
        using var testDirectory = new TestDirectory();
        var directory = testDirectory.Path;
        await using (var first = await RunningServer.StartAsync(directory))
        {
            using var created = await first.Client.PutAsync(
                ApiTestServer.Relative("/etl/kept"),
                ApiTestServer.Json("""{"collections":["*"],"rabbitMq":{"uri":"amqp://127.0.0.1:1/","exchange":"x"}}"""));
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        }

        await using var second = await RunningServer.StartAsync(directory);
        using var response = await second.Client.GetAsync(ApiTestServer.Relative("/etl/kept"));
        var view = await ApiTestServer.ReadJsonAsync(response, HttpStatusCode.OK);

        Assert.Equal("http", view.GetProperty("origin").GetString());
        Assert.Equal("*", view.GetProperty("definition").GetProperty("collections")[0].GetString());
    }

    [Fact]
    public async Task A_bad_task_in_configuration_stops_the_server_at_start_naming_the_setting()
    {
        using var directory = new TestDirectory();
        var app = IngestHost.Build(["--urls", "http://127.0.0.1:0", $"--Ingest:DataDirectory={directory.Path}",
            "--Ingest:Etl:0:Name=broken", "--Ingest:Etl:0:Collections:0=Orders", "--Ingest:Etl:0:Kafka:BootstrapServers=h:1",
            "--Ingest:Etl:0:Kafka:Topic=t", "--Ingest:Etl:0:Script=function nope() {}"]);
        await using (app)
        {
            var error = await Assert.ThrowsAsync<OptionsValidationException>(() => IngestHost.StartAsync(app));

            Assert.Contains("Ingest:Etl:0:Script does not compile: the script must define function transform", error.Message, StringComparison.Ordinal);
        }
    }

    /// <summary>A server with two orders and a task whose broker does not answer, once the task is retrying.</summary>
    private static async Task<ApiTestServer> StartRetryingTaskAsync()
    {
        var server = await ApiTestServer.StartAsync(
            "--Ingest:Etl:0:Name=nowhere", "--Ingest:Etl:0:Collections:0=Orders",
            "--Ingest:Etl:0:RabbitMq:Uri=amqp://guest:guest@127.0.0.1:1/", "--Ingest:Etl:0:RabbitMq:Exchange=x");
        await server.Store.WriteAsync(EtlTestKit.Orders(1, 2));
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while ((await server.GetJsonAsync("/etl/nowhere")).GetProperty("status").GetProperty("state").GetString() != "Retrying")
        {
            await Task.Delay(50, timeout.Token);
        }

        return server;
    }

    private static async Task<JsonElement> WaitCaughtUpAsync(ApiTestServer server, string name)
    {
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while (true)
        {
            var status = (await server.GetJsonAsync($"/etl/{name}")).GetProperty("status");
            if (status.GetProperty("lastSentEtag").GetInt64() >= server.Store.LastEtag)
            {
                return status;
            }

            await Task.Delay(50, timeout.Token);
        }
    }
}
