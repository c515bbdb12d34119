using System.Text;
using Ingest.Cli.Tests.Support;
using Ingest.Contracts.Messages;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;

namespace Ingest.Cli.Tests.Integration;

/// <summary>Publishes with <c>ingest publish rabbitmq</c> to a real broker and reads the messages back with a plain consumer.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class RabbitMqPublishTests(BrokerFixture brokers)
{
    [Fact]
    public async Task Publish_rabbitmq_sends_persistent_json_messages_with_ids_and_headers()
    {
        var uri = (await brokers.GetRabbitMqAsync()).Uri.ToString();
        var queue = $"ingest-cli-test-{Guid.NewGuid():N}";
        var factory = new ConnectionFactory { Uri = new Uri(uri) };
        await using var connection = await factory.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();

        // Not exclusive: the command publishes over its own connection and checks that the queue exists.
        await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
        try
        {
            using var input = TempFile.Write("{\"id\":\"orders/1\",\"total\":10}\n{\"id\":\"orders/2\",\"total\":20}\n");

            var put = await CommandLineRun.RunAsync(
                "publish", "rabbitmq", "--uri", uri, "--queue", queue, "--lines", "--id-property", "id", "--collection", "Orders", input.Path);
            var delete = await CommandLineRun.RunAsync(
                "publish", "rabbitmq", "--uri", uri, "--queue", queue, "--id", "orders/1", "--delete");

            Assert.True(put.ExitCode == 0, put.ToString());
            Assert.Matches($"^published 2 documents to rabbitmq queue {queue} in [0-9]+ ms$", put.Output.TrimEnd());
            Assert.True(delete.ExitCode == 0, delete.ToString());

            var first = await GetAsync(channel, queue);
            var second = await GetAsync(channel, queue);
            var third = await GetAsync(channel, queue);
            Assert.Null(await channel.BasicGetAsync(queue, autoAck: true));

            Assert.Equal("{\"id\":\"orders/1\",\"total\":10}", Encoding.UTF8.GetString(first.Body.Span));
            Assert.Equal("orders/1", first.BasicProperties.MessageId);
            Assert.Equal("application/json", first.BasicProperties.ContentType);
            Assert.Equal(DeliveryModes.Persistent, first.BasicProperties.DeliveryMode);
            Assert.Equal("orders/1", Header(first, IngestHeaders.Id));
            Assert.Equal("Orders", Header(first, IngestHeaders.Collection));
            Assert.Null(Header(first, IngestHeaders.Operation));

            Assert.Equal("{\"id\":\"orders/2\",\"total\":20}", Encoding.UTF8.GetString(second.Body.Span));
            Assert.Equal("orders/2", second.BasicProperties.MessageId);
            Assert.Equal("orders/2", Header(second, IngestHeaders.Id));

            Assert.True(third.Body.IsEmpty);
            Assert.Equal("orders/1", third.BasicProperties.MessageId);
            Assert.Equal(DeliveryModes.Persistent, third.BasicProperties.DeliveryMode);
            Assert.Equal("orders/1", Header(third, IngestHeaders.Id));
            Assert.Equal("delete", Header(third, IngestHeaders.Operation));
        }
        finally
        {
            await channel.QueueDeleteAsync(queue);
        }
    }

    [Fact]
    public async Task Publish_rabbitmq_to_an_exchange_routes_by_key_and_fails_when_nothing_is_bound()
    {
        var uri = (await brokers.GetRabbitMqAsync()).Uri.ToString();
        var queue = $"ingest-cli-test-{Guid.NewGuid():N}";
        var factory = new ConnectionFactory { Uri = new Uri(uri) };
        await using var connection = await factory.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false);
        await channel.QueueBindAsync(queue, "amq.direct", routingKey: queue);
        try
        {
            var routed = await CommandLineRun.RunAsync(
                "publish", "rabbitmq", "--uri", uri, "--exchange", "amq.direct", "--routing-key", queue, "--id", "orders/9", "--delete");
            var unroutable = await CommandLineRun.RunAsync(
                "publish", "rabbitmq", "--uri", uri, "--exchange", "amq.direct", "--routing-key", queue + "-unbound", "--id", "orders/9", "--delete");

            Assert.True(routed.ExitCode == 0, routed.ToString());
            Assert.Equal("orders/9", (await GetAsync(channel, queue)).BasicProperties.MessageId);
            Assert.Equal(1, unroutable.ExitCode);
            Assert.Contains("returned as unroutable", unroutable.Error, StringComparison.Ordinal);
            Assert.Contains("0 of 1 documents were confirmed", unroutable.Error, StringComparison.Ordinal);
        }
        finally
        {
            await channel.QueueDeleteAsync(queue);
        }
    }

    [Fact]
    public async Task Publish_rabbitmq_to_a_missing_queue_fails_and_says_so()
    {
        var uri = (await brokers.GetRabbitMqAsync()).Uri.ToString();
        var queue = $"ingest-cli-test-missing-{Guid.NewGuid():N}";

        var run = await CommandLineRun.RunAsync("publish", "rabbitmq", "--uri", uri, "--queue", queue, "--id", "a", "--delete");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"error: cannot publish to rabbitmq queue {queue}: NOT_FOUND", run.Error, StringComparison.Ordinal);
    }

    private static async Task<BasicGetResult> GetAsync(IChannel channel, string queue)
    {
        var result = await channel.BasicGetAsync(queue, autoAck: true);
        Assert.NotNull(result);
        return result;
    }

    // AMQP delivers string header values as UTF-8 bytes.
    private static string? Header(BasicGetResult message, string name) =>
        message.BasicProperties.Headers?.TryGetValue(name, out var value) == true && value is byte[] bytes ? Encoding.UTF8.GetString(bytes) : null;
}
