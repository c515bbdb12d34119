using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using Xunit.Abstractions;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;
using CloudEvent = CloudNative.CloudEvents.CloudEvent;

namespace Ingest.Server.Tests.Etl;

/// <summary>
/// The whole path with real brokers: documents ingested by the server's Kafka source are delivered by one ETL
/// task to another Kafka topic and by a second to a RabbitMQ exchange bound to a queue. A second round updates
/// some documents and deletes others. Every change the store holds arrives on both, with its body and
/// CloudEvents attributes exact, deletes as tombstones / deleted events, and each document's events in etag order.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlEndToEndTests(BrokerFixture brokers, ITestOutputHelper output)
{
    private const int Documents = 100_000;
    private const int Partitions = 3;
    private const string Source = "/ingest/test";
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(3);

    [Fact]
    public async Task Documents_ingested_from_kafka_reach_a_kafka_topic_and_a_rabbitmq_queue_exactly_deletes_included_in_order()
    {
        var started = Stopwatch.StartNew();
        var kafka = await brokers.GetKafkaAsync();
        var rabbit = await brokers.GetRabbitMqAsync();
        var input = NewName("etl-e2e-in");
        var outputTopic = NewName("etl-e2e-out");
        var exchange = NewName("etl-e2e-x");
        var queue = NewName("etl-e2e-q");
        await CreateTopicAsync(kafka.BootstrapServers, input, Partitions);
        await CreateTopicAsync(kafka.BootstrapServers, outputTopic, Partitions);
        await using var connection = await new ConnectionFactory { Uri = rabbit.Uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(exchange, ExchangeType.Direct, durable: false, autoDelete: false);
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false);
        await channel.QueueBindAsync(queue, exchange, "orders");
        try
        {
            await using var server = await ApiTestServer.StartAsync(
                $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
                $"--Ingest:Sources:Kafka:0:Topics:0={input}",
                $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
                "--Ingest:Sources:Kafka:0:Collection=Orders",
                "--Ingest:Etl:0:Name=to-kafka", "--Ingest:Etl:0:Collections:0=Orders", $"--Ingest:Etl:0:Source={Source}",
                $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}", $"--Ingest:Etl:0:Kafka:Topic={outputTopic}",
                "--Ingest:Etl:1:Name=to-rabbitmq", "--Ingest:Etl:1:Collections:0=Orders", $"--Ingest:Etl:1:Source={Source}",
                $"--Ingest:Etl:1:RabbitMq:Uri={rabbit.Uri}", $"--Ingest:Etl:1:RabbitMq:Exchange={exchange}", "--Ingest:Etl:1:RabbitMq:RoutingKey=orders");
            var store = server.Store;

            // Round one: every document is put. The tasks catch up before round two, so each put is sent on its own.
            await ProduceAsync(kafka.BootstrapServers, input, [.. Enumerable.Range(0, Documents).Select(static i => Record(Id(i), Body(i, 1)))]);
            await WaitUntilAsync(() => store.GetStats().DocumentCount == Documents, Patience, "round one stored");
            await WaitCaughtUpAsync(server, store.LastEtag);
            var roundOneEnd = store.LastEtag;
            var roundOne = store.GetChangesSince(0, int.MaxValue);
            output.WriteLine($"round one stored and sent: {started.Elapsed.TotalSeconds:F1} s");

            // The ETL tasks let the store purge tombstones once they sent them; this consumer keeps them for the checks below.
            await store.RegisterConsumerAsync("etl-e2e-test", roundOneEnd);

            // Round two: every tenth document is deleted (a tombstone), every tenth from 5 on is updated.
            var changes = Enumerable.Range(0, Documents).Where(static i => i % 10 == 0).Select(static i => Record(Id(i), null))
                .Concat(Enumerable.Range(0, Documents).Where(static i => i % 10 == 5).Select(static i => Record(Id(i), Body(i, 2))));
            await ProduceAsync(kafka.BootstrapServers, input, [.. changes]);
            await WaitUntilAsync(() => store.LastEtag >= roundOneEnd + (Documents / 5), Patience, "round two stored");
            await WaitCaughtUpAsync(server, store.LastEtag);
            output.WriteLine($"round two stored and sent: {started.Elapsed.TotalSeconds:F1} s");

            // What the store recorded, in etag order, is what must arrive: round one's puts, then round two's changes.
            var roundTwo = store.GetChangesSince(roundOneEnd, int.MaxValue);
            Assert.Equal(Documents, roundOne.Count);
            Assert.Equal(Documents / 5, roundTwo.Count);
            Assert.All(roundOne, static c => Assert.Equal(Body(Index(c.Id), 1), Encoding.UTF8.GetString(c.Body.Span)));
            Assert.All(roundTwo, static c => Assert.Equal(Index(c.Id) % 10 == 0, c.IsDeleted));
            List<Document> expected = [.. roundOne, .. roundTwo];

            var fromKafka = ConsumeKafka(kafka.BootstrapServers, outputTopic, expected.Count);
            output.WriteLine($"kafka consumed: {started.Elapsed.TotalSeconds:F1} s");
            var fromRabbit = await ConsumeRabbitMqAsync(channel, queue, expected.Count);
            output.WriteLine($"rabbitmq consumed: {started.Elapsed.TotalSeconds:F1} s");

            AssertDelivered(expected, fromKafka.Select(static r => r.Delivered).ToList(), "kafka");
            AssertDelivered(expected, fromRabbit, "rabbitmq");
            var partitionsPerKey = fromKafka.GroupBy(static r => r.Key).Where(static g => g.Select(static r => r.Partition).Distinct().Count() > 1).Select(static g => g.Key).Take(5).ToList();
            Assert.True(partitionsPerKey.Count == 0, $"documents on several partitions: {string.Join(", ", partitionsPerKey)}");
            Assert.All(fromKafka, static r => Assert.Equal(r.Delivered.Event.Subject, r.Key));
            Assert.All(fromRabbit, static m => Assert.Equal(m.Event.Id, m.MessageId));
            output.WriteLine($"total: {started.Elapsed.TotalSeconds:F1} s");
        }
        finally
        {
            await channel.QueueDeleteAsync(queue);
            await channel.ExchangeDeleteAsync(exchange);
        }
    }

    private static string Id(int i) => $"orders/{i}";

    private static int Index(string id) => int.Parse(id.AsSpan("orders/".Length), System.Globalization.CultureInfo.InvariantCulture);

    private static string Body(int i, int version) => $$"""{"N":{{i}},"Version":{{version}},"Customer":"customer-{{i % 97}}"}""";

    private static List<(string Key, int Partition, Delivered Delivered)> ConsumeKafka(string bootstrap, string topic, int count)
    {
        var config = new ConsumerConfig { BootstrapServers = bootstrap, GroupId = NewName("etl-e2e"), AutoOffsetReset = AutoOffsetReset.Earliest, EnableAutoCommit = false };
        using var consumer = new ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        consumer.Subscribe(topic);
        var records = new List<(string, int, Delivered)>(count);
        var ids = new HashSet<string>(StringComparer.Ordinal);
        var deadline = DateTime.UtcNow + Patience;
        while (ids.Count < count && DateTime.UtcNow < deadline)
        {
            var result = consumer.Consume(TimeSpan.FromMilliseconds(500));
            if (result?.Message is { } message)
            {
                var headers = message.Headers.Select(static h => new KeyValuePair<string, byte[]?>(h.Key, h.GetValueBytes()));
                var cloudEvent = KafkaCloudEventBinding.Decode(headers, message.Value);
                ids.Add(cloudEvent.Id!);
                records.Add((Encoding.UTF8.GetString(message.Key), result.Partition.Value, new Delivered(cloudEvent, cloudEvent.DataContentType, message.Value)));
            }
        }

        consumer.Close();
        Assert.True(ids.Count >= count, $"only {ids.Count} of {count} events arrived on '{topic}'");
        return records;
    }

    private static async Task<List<Delivered>> ConsumeRabbitMqAsync(IChannel channel, string queue, int count)
    {
        var received = new ConcurrentQueue<Delivered>();
        var ids = new ConcurrentDictionary<string, bool>(StringComparer.Ordinal);
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await channel.BasicQosAsync(0, 2_000, global: false);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += (_, delivery) =>
        {
            var properties = delivery.BasicProperties;
            var cloudEvent = AmqpCloudEventBinding.Decode(properties.ContentType, properties.Headers!, delivery.Body);
            received.Enqueue(new Delivered(cloudEvent, properties.ContentType, delivery.Body.ToArray(), properties.MessageId));
            if (ids.TryAdd(cloudEvent.Id!, true) && ids.Count >= count)
            {
                all.TrySetResult();
            }

            return Task.CompletedTask;
        };
        var tag = await channel.BasicConsumeAsync(queue, autoAck: true, consumer);
        try
        {
            await all.Task.WaitAsync(Patience);
        }
        catch (TimeoutException)
        {
            Assert.Fail($"only {ids.Count} of {count} events arrived on '{queue}'");
        }

        await channel.BasicCancelAsync(tag);
        return [.. received];
    }

    /// <summary>
    /// Each change arrived (duplicates allowed: at-least-once) with its exact attributes and body, and each
    /// document's events, de-duplicated by id, came in etag order.
    /// </summary>
    private static void AssertDelivered(IReadOnlyList<Document> expected, IReadOnlyList<Delivered> delivered, string where)
    {
        // Every change came from the input topic, so it is named by its message's position, the same on every node.
        var byId = expected.ToDictionary(
            static c => c.Position is { } p ? DocumentChangeEvent.EventId(c.Id, p.Topic, p.Partition, p.Offset) : throw new InvalidOperationException($"{c.Id}@{c.Etag} has no log position"),
            StringComparer.Ordinal);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var order = new Dictionary<string, List<long>>(StringComparer.Ordinal);
        var problems = new List<string>();
        foreach (var message in delivered)
        {
            var e = message.Event;
            if (!seen.Add(e.Id!))
            {
                continue;
            }

            if (!byId.TryGetValue(e.Id!, out var change))
            {
                problems.Add($"unexpected event {e.Id}");
                continue;
            }

            var body = change.IsDeleted ? [] : change.Body.ToArray();
            var mismatch =
                e.Type != (change.IsDeleted ? DocumentEventTypes.Deleted : DocumentEventTypes.Put) ? "type"
                : e.Source?.OriginalString != $"{Source}/Orders" ? "source"
                : e.Subject != change.Id ? "subject"
                : e.Time != new DateTimeOffset(change.LastModified) ? "time"
                : message.ContentType != (change.IsDeleted ? null : "application/json") ? "content type"
                : !(message.Body ?? []).AsSpan().SequenceEqual(body) ? "body"
                : null;
            if (mismatch is not null)
            {
                problems.Add($"{e.Id}: wrong {mismatch}");
            }

            if (!order.TryGetValue(change.Id, out var etags))
            {
                order[change.Id] = etags = [];
            }

            etags.Add(change.Etag);
        }

        problems.AddRange(byId.Keys.Where(id => !seen.Contains(id)).Take(5).Select(static id => $"missing {id}"));
        problems.AddRange(order.Where(static p => !p.Value.SequenceEqual(p.Value.Order())).Take(5).Select(static p => $"{p.Key} out of order: {string.Join(", ", p.Value)}"));
        Assert.True(problems.Count == 0, $"{where}: {problems.Count} problems, first: {string.Join("; ", problems.Take(10))}");
        Assert.Equal(expected.Count, seen.Count);
    }

    private sealed record Delivered(CloudEvent Event, string? ContentType, byte[]? Body, string? MessageId = null);

    private static async Task WaitCaughtUpAsync(ApiTestServer server, long etag)
    {
        await WaitUntilAsync(
            async () =>
            {
                var tasks = (await server.GetJsonAsync("/stats")).GetProperty("etl");
                return tasks.GetArrayLength() == 2 && tasks.EnumerateArray().All(t => t.GetProperty("lastSentEtag").GetInt64() >= etag);
            },
            Patience,
            $"both ETL tasks sent up to etag {etag}");
    }
}
