using System.Net;
using System.Text;
using Ingest.Server.Etl;
using Ingest.Server.Hosting;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// An ETL task defined over HTTP is stored in the data directory (and so in its backups): its broker
/// secrets must be <c>secret:NAME</c> references to <c>Ingest:Secrets:NAME</c>, never the secrets themselves.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlSecretReferenceTests(BrokerFixture brokers)
{
    private const string Literal = "hunter2-literal-password";

    [Theory]
    [InlineData("""{"collections":["Orders"],"kafka":{"bootstrapServers":"h:1","topic":"t","settings":{"security.protocol":"SASL_SSL","sasl.password":"LITERAL"}}}""", "definition:Kafka:Settings:sasl.password must be a reference")]
    [InlineData("""{"collections":["Orders"],"rabbitMq":{"uri":"amqps://etl:LITERAL@h:5671/","exchange":"e"}}""", "definition:RabbitMq:Uri's password must be a reference")]
    [InlineData("""{"collections":["Orders"],"kafka":{"bootstrapServers":"h:1","topic":"t","settings":{"sasl.password":"secret:nowhere"}}}""", "refers to secret:nowhere, but Ingest:Secrets:nowhere is not configured")]
    public async Task A_secret_given_as_a_value_or_a_reference_to_nothing_is_refused_without_showing_it(string body, string expected)
    {
        await using var server = await ApiTestServer.StartAsync();

        using var response = await server.PutAsync("/etl/orders-out", body.Replace("LITERAL", Literal, StringComparison.Ordinal));

        var detail = await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains(expected, detail, StringComparison.Ordinal);
        Assert.DoesNotContain(Literal, detail, StringComparison.Ordinal);
        using var missing = await server.Client.GetAsync(ApiTestServer.Relative("/etl/orders-out"));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task A_referenced_password_is_resolved_to_publish_and_never_stored_shown_or_backed_up()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var user = Uri.UnescapeDataString(rabbit.Uri.UserInfo.Split(':')[0]);
        var password = Uri.UnescapeDataString(rabbit.Uri.UserInfo.Split(':')[1]);
        var exchange = $"etl-secret-{Guid.NewGuid():N}";
        await using var connection = await new ConnectionFactory { Uri = rabbit.Uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(exchange, ExchangeType.Fanout, durable: false, autoDelete: false);
        var queue = (await channel.QueueDeclareAsync($"{exchange}-q", durable: false, exclusive: false, autoDelete: false)).QueueName;
        await channel.QueueBindAsync(queue, exchange, "");
        try
        {
            await using var server = await ApiTestServer.StartAsync($"--Ingest:Secrets:rabbit={password}");
            var uri = $"amqp://{Uri.EscapeDataString(user)}:secret:rabbit@{rabbit.Uri.Host}:{rabbit.Uri.Port}{rabbit.Uri.AbsolutePath}";
            using (var created = await server.PutAsync("/etl/orders-rabbit", $$$"""{"collections":["Orders"],"rabbitMq":{"uri":"{{{uri}}}","exchange":"{{{exchange}}}"}}"""))
            {
                Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            }

            using (var put = await server.PutAsync("/docs/orders/1?collection=Orders", """{"N":1}"""))
            {
                Assert.True(put.IsSuccessStatusCode);
            }

            BasicGetResult? message = null;
            var deadline = DateTime.UtcNow + EtlTestKit.Patience;
            while (message is null && DateTime.UtcNow < deadline)
            {
                message = await channel.BasicGetAsync(queue, autoAck: true);
                await Task.Delay(message is null ? 50 : 0);
            }

            Assert.NotNull(message);
            Assert.Equal("""{"N":1}""", Encoding.UTF8.GetString(message.Body.Span));

            var stored = await File.ReadAllTextAsync(Path.Combine(server.Server.Services.GetRequiredService<DataDirectory>().FullPath, EtlService.Folder, "tasks.json"));
            Assert.Contains("secret:rabbit", stored, StringComparison.Ordinal);
            Assert.DoesNotContain($":{password}@", stored, StringComparison.Ordinal);
            using var backup = await server.Client.PostAsync(ApiTestServer.Relative("/admin/backup"), content: null);
            var bytes = await backup.Content.ReadAsByteArrayAsync();
            Assert.Equal(HttpStatusCode.OK, backup.StatusCode);
            Assert.Equal(-1, bytes.AsSpan().IndexOf(Encoding.UTF8.GetBytes($":{password}@")));
        }
        finally
        {
            await channel.QueueDeleteAsync(queue);
            await channel.ExchangeDeleteAsync(exchange);
        }
    }
}
