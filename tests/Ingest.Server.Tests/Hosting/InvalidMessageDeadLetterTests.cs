using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Server.Tests.Sources.RabbitMq;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Hosting;

/// <summary>
/// Messages whose collection or body the store refuses (a control character, a blank name, a body
/// that is not valid UTF-8) become dead letters that say why, through the running server, and
/// the message behind them still lands.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class InvalidMessageDeadLetterTests(BrokerFixture brokers) : IDisposable
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(90);
    private readonly TestDirectory _dataDirectory = new();

    // id, ingest-collection header (null: none), body, what the dead letter's reason must say (null: stored)
    private static readonly (string Id, string? Collection, byte[] Body, string? Reason)[] Messages =
    [
        ("bell", "Bell\u0007", "{}"u8.ToArray(), "the collection name has the character U+0007 at position 4"),
        ("blank", "   ", "{}"u8.ToArray(), "the collection name is only whitespace"),
        ("surrogate", null, InvalidUtf8Bodies.Body("encoded surrogate ED A0 80"), "not valid UTF-8 at byte 6"),
        ("latin1", null, InvalidUtf8Bodies.Body("Latin-1 text"), "not valid UTF-8 at byte 12"),
        ("good", "Café", "{\"ok\":true}"u8.ToArray(), null),
    ];

    public void Dispose() => _dataDirectory.Dispose();

    [Fact]
    public async Task Kafka_messages_with_a_bad_collection_or_invalid_utf8_become_dead_letters_naming_the_problem()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("invalid-messages");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await ProduceAsync(kafka.BootstrapServers, topic, [.. Messages.Select(m => new Message<byte[]?, byte[]?>
        {
            Key = System.Text.Encoding.UTF8.GetBytes(m.Id),
            Value = m.Body,
            Headers = m.Collection is null ? null : new Confluent.Kafka.Headers { { "ingest-collection", System.Text.Encoding.UTF8.GetBytes(m.Collection) } },
        })]);

        await using var server = await RunningServer.StartAsync(
            _dataDirectory.Path,
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}");

        await AssertDeadLettersAsync(server.Services.GetRequiredService<DocumentStore>());
    }

    [Fact]
    public async Task Rabbitmq_messages_with_a_bad_collection_or_invalid_utf8_become_dead_letters_naming_the_problem()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"invalid-messages-{Guid.NewGuid():N}";
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await client.PublishAsync(queue, Messages.Length, i =>
        {
            var properties = new BasicProperties { MessageId = Messages[i].Id };
            if (Messages[i].Collection is { } collection)
            {
                properties.Headers = new Dictionary<string, object?> { ["ingest-collection"] = System.Text.Encoding.UTF8.GetBytes(collection) };
            }

            return (properties, Messages[i].Body);
        });

        await using (var server = await RunningServer.StartAsync(
            _dataDirectory.Path, $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}", $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}"))
        {
            await AssertDeadLettersAsync(server.Services.GetRequiredService<DocumentStore>());
        }

        Assert.Equal(0u, await client.ReadyAsync(queue));
        await client.DeleteAsync(queue);
    }

    private static async Task AssertDeadLettersAsync(DocumentStore store)
    {
        await WaitUntilAsync(() => store.Get("good") is not null, Timeout, "the good message stored after the bad ones");

        Assert.Equal("Café", store.Get("good")!.Collection);
        var deadLetters = store.GetDeadLetters(0, 100);
        var expected = Messages.Where(m => m.Reason is not null).ToArray();
        Assert.Equal(expected.Length, deadLetters.Count);
        for (var i = 0; i < expected.Length; i++)
        {
            Assert.Null(store.Get(expected[i].Id));
            Assert.Contains(expected[i].Reason!, deadLetters[i].Reason, StringComparison.Ordinal);
        }
    }
}
