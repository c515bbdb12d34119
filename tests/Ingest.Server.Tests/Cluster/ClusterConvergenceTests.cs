using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Cluster;

/// <summary>
/// Three real server processes in cluster mode on one Kafka broker: Kafka and RabbitMQ ingestion and HTTP
/// writes on every node while nodes are SIGKILLed and restarted at seeded moments (once with its data directory
/// deleted, so it rebuilds from the log). At the end every node holds
/// exactly the model of what was published and written (nothing lost, nothing applied twice), every node's
/// digest of every collection is the same, and the ETL tasks' downstream copies end at each document's last
/// version, with duplicates carrying the same CloudEvents id as their first copy.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class ClusterConvergenceTests(BrokerFixture brokers, ITestOutputHelper output) : IDisposable
{
    private const int Nodes = 3;
    private const int Kills = 21;
    private const int Partitions = 3;
    private const int Keys = 400;
    private static readonly TimeSpan ConvergeTimeout = TimeSpan.FromMinutes(3);

    private readonly TestDirectory _directory = new();
    private readonly List<ClusterNode> _nodes = [];
    private int _httpWrites;
    private int _httpRetries;
    private string? _lastHttpProblem;

    [Fact]
    [Trait("Category", "Cluster")]
    public async Task Three_nodes_converge_on_the_model_across_sigkills()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var kafka = await brokers.GetKafkaAsync();
        var rabbit = await brokers.GetRabbitMqAsync();
        var run = Guid.NewGuid().ToString("N")[..12];
        var ordersTopic = $"orders-{run}";
        var etlTopic = $"etl-out-{run}";
        var queue = $"events-{run}";
        var etlQueue = $"etl-out-{run}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync(
            [
                new TopicSpecification { Name = ordersTopic, NumPartitions = Partitions, ReplicationFactor = 1 },
                new TopicSpecification { Name = etlTopic, NumPartitions = Partitions, ReplicationFactor = 1 },
            ]);
        }

        var factory = new ConnectionFactory { Uri = rabbit.Uri };
        await using var connection = await factory.CreateConnectionAsync();
        await using (var declare = await connection.CreateChannelAsync())
        {
            await declare.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
            await declare.QueueDeclareAsync(etlQueue, durable: true, exclusive: false, autoDelete: false);
        }

        string[] settings =
        [
            $"--Ingest:Cluster:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Cluster:Topic=cluster-{run}",
            $"--Ingest:Cluster:LeaseTopic=leases-{run}",
            "--Ingest:Cluster:SessionTimeout=00:00:06",
            "--Ingest:Sources:Kafka:0:Name=orders",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={ordersTopic}",
            $"--Ingest:Sources:Kafka:0:GroupId=orders-{run}",
            "--Ingest:Sources:Kafka:0:Collection=Orders",
            "--Ingest:Sources:RabbitMq:0:Name=events",
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            "--Ingest:Sources:RabbitMq:0:Collection=Events",
            "--Ingest:Etl:0:Name=to-kafka",
            "--Ingest:Etl:0:Collections:0=*",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Etl:0:Kafka:Topic={etlTopic}",
            "--Ingest:Etl:1:Name=to-rabbitmq",
            "--Ingest:Etl:1:Collections:0=Orders",
            "--Ingest:Etl:1:Collections:1=Notes",
            $"--Ingest:Etl:1:RabbitMq:Uri={rabbit.Uri}",
            "--Ingest:Etl:1:RabbitMq:Exchange=",
            $"--Ingest:Etl:1:RabbitMq:RoutingKey={etlQueue}",
            "--Ingest:Batching:MaxMessages=200",
        ];
        for (var i = 1; i <= Nodes; i++)
        {
            _nodes.Add(new ClusterNode($"node-{i}", _directory.Combine($"node-{i}"), settings));
        }

        foreach (var node in _nodes)
        {
            node.Start();
        }

        var model = new ClusterModel();
        using var stop = new CancellationTokenSource();
        var producing = Task.Run(() => ProduceKafka(kafka.BootstrapServers, ordersTopic, model, seed, stop.Token));
        var publishing = PublishRabbitMqAsync(connection, queue, model, stop.Token);
        var writing = Task.Run(() => WriteOverHttpAsync(model, seed, stop.Token));

        for (var kill = 1; kill <= Kills; kill++)
        {
            await Task.Delay(random.Next(300, 2_500));
            var node = _nodes[random.Next(Nodes)];
            node.Kill();
            output.WriteLine($"kill {kill}: {node.Name}; {model.Describe()}; HTTP {_httpWrites} written, {_httpRetries} retried (last: {_lastHttpProblem})");
            if (kill == Kills / 2)
            {
                // A lost disk: the node must rebuild everything from the topics (nothing has expired from them).
                node.DeleteData();
                output.WriteLine($"  {node.Name}'s data directory deleted");
            }

            await Task.Delay(random.Next(0, 1_500));
            node.Start();
        }

        await stop.CancelAsync();
        await producing;
        await publishing;
        await writing;
        output.WriteLine($"published and written: {model.Describe()}");

        foreach (var collection in (string[])["Orders", "Events", "Notes"])
        {
            await WaitForConvergenceAsync(collection, model.Expected(collection));
        }

        VerifyKafkaEtl(kafka.BootstrapServers, etlTopic, model);
        await VerifyRabbitMqEtlAsync(connection, etlQueue, model);
    }

    public void Dispose()
    {
        foreach (var node in _nodes)
        {
            node.Dispose();
        }

        _directory.Dispose();
    }

    /// <summary>Every node lists exactly the model's documents, and all digests agree.</summary>
    private async Task WaitForConvergenceAsync(string collection, IReadOnlyDictionary<string, string> expected)
    {
        var deadline = DateTime.UtcNow + ConvergeTimeout;
        string last = "";
        while (true)
        {
            var digests = new List<string>();
            var mismatch = (string?)null;
            foreach (var node in _nodes)
            {
                var documents = await ListAsync(node, collection);
                mismatch ??= ClusterModel.FirstDifference(expected, documents) is { } difference ? $"{node.Name}: {difference}" : null;
                digests.Add(await DigestAsync(node, collection));
            }

            var agree = digests.TrueForAll(d => d == digests[0]);
            if (mismatch is null && agree)
            {
                output.WriteLine($"{collection}: {expected.Count} documents on every node, digest {digests[0]}");
                return;
            }

            last = mismatch ?? $"digests differ: {string.Join(", ", digests)}";
            if (DateTime.UtcNow > deadline)
            {
                var logs = string.Join("\n\n", _nodes.Select(n => $"== {n.Name} ==\n{Tail(n.Log)}"));
                throw new Xunit.Sdk.XunitException($"{collection} did not converge within {ConvergeTimeout}: {last}\n{logs}");
            }

            await Task.Delay(1_000);
        }
    }

    private static async Task<Dictionary<string, string>> ListAsync(ClusterNode node, string collection)
    {
        var documents = new Dictionary<string, string>(StringComparer.Ordinal);
        var start = "0";
        while (true)
        {
            using var json = JsonDocument.Parse(await node.Client.GetStringAsync(
                new Uri($"docs?collection={collection}&pageSize=1000&start={start}", UriKind.Relative)));
            foreach (var item in json.RootElement.GetProperty("items").EnumerateArray())
            {
                documents[item.GetProperty("id").GetString()!] = ClusterModel.Canonical(item.GetProperty("document"));
            }

            var next = json.RootElement.GetProperty("next");
            if (next.ValueKind == JsonValueKind.Null)
            {
                return documents;
            }

            start = next.GetInt64().ToString(CultureInfo.InvariantCulture);
        }
    }

    private static async Task<string> DigestAsync(ClusterNode node, string collection)
    {
        using var response = await node.Client.GetAsync(new Uri($"cluster/digest?collection={collection}", UriKind.Relative));
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return "(no collection)";
        }

        response.EnsureSuccessStatusCode();
        using var json = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return json.RootElement.GetProperty("digest").GetString()!;
    }

    private static void ProduceKafka(string bootstrap, string topic, ClusterModel model, int seed, CancellationToken stop)
    {
        var random = new Random(seed + 1);
        var config = new ProducerConfig { BootstrapServers = bootstrap, EnableIdempotence = true, Acks = Acks.All, LingerMs = 5 };
        using var producer = new ProducerBuilder<string, byte[]?>(config).Build();
        var seq = 0;
        while (!stop.IsCancellationRequested)
        {
            for (var i = 0; i < 10; i++, seq++)
            {
                // Keys repeat, so later versions replace earlier ones; a few are tombstones (deletes).
                var id = $"orders/{random.Next(Keys).ToString(CultureInfo.InvariantCulture)}";
                var body = random.Next(10) == 0 ? null : ClusterModel.Body(seq, "kafka");
                model.Record("Orders", id, body);
                producer.Produce(topic, new Message<string, byte[]?> { Key = id, Value = body is null ? null : Encoding.UTF8.GetBytes(body) });
            }

            Thread.Sleep(10);
        }

        Assert.Equal(0, producer.Flush(TimeSpan.FromSeconds(30)));
    }

    private static async Task PublishRabbitMqAsync(IConnection connection, string queue, ClusterModel model, CancellationToken stop)
    {
        await Task.Yield();
        var confirms = new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true);
        await using var channel = await connection.CreateChannelAsync(confirms);
        var seq = 0;
        var window = new List<Task>();
        while (!stop.IsCancellationRequested)
        {
            // Each RabbitMQ message is its own document: a queue has no per-key order to keep.
            for (var i = 0; i < 5; i++, seq++)
            {
                var id = $"events/{seq.ToString(CultureInfo.InvariantCulture)}";
                var body = ClusterModel.Body(seq, "rabbitmq");
                model.Record("Events", id, body);
                var properties = new BasicProperties { MessageId = id, DeliveryMode = DeliveryModes.Persistent };
                window.Add(channel.BasicPublishAsync(string.Empty, queue, mandatory: true, properties, Encoding.UTF8.GetBytes(body)).AsTask());
            }

            await Task.WhenAll(window);
            window.Clear();
            await Task.Delay(20, CancellationToken.None);
        }
    }

    /// <summary>
    /// Puts and deletes on random nodes; one that fails (its node was killed) is sent again to another node
    /// until one answers, so the model's last operation per document is the last one applied.
    /// </summary>
    private async Task WriteOverHttpAsync(ClusterModel model, int seed, CancellationToken stop)
    {
        var random = new Random(seed + 2);
        var seq = 0;
        while (!stop.IsCancellationRequested)
        {
            var id = $"notes/{random.Next(Keys / 4).ToString(CultureInfo.InvariantCulture)}";
            var body = random.Next(8) == 0 ? null : ClusterModel.Body(seq++, "http");
            model.Record("Notes", id, body);
            for (var attempt = 0; ; attempt++)
            {
                var node = _nodes[random.Next(Nodes)];
                try
                {
                    using var request = body is null
                        ? new HttpRequestMessage(HttpMethod.Delete, new Uri($"docs/{id}", UriKind.Relative))
                        : new HttpRequestMessage(HttpMethod.Put, new Uri($"docs/{id}?collection=Notes", UriKind.Relative))
                        {
                            Content = new StringContent(body, Encoding.UTF8, new MediaTypeHeaderValue("application/json")),
                        };
                    using var response = await node.Client.SendAsync(request, CancellationToken.None);
                    if (response.IsSuccessStatusCode || (body is null && response.StatusCode == HttpStatusCode.NotFound))
                    {
                        _httpWrites++;
                        break;
                    }

                    _httpRetries++;
                    _lastHttpProblem = $"{node.Name} {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(CancellationToken.None)}";

                    if (attempt > 200)
                    {
                        Assert.Fail($"{request.Method} {id} on {node.Name}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(CancellationToken.None)}");
                    }
                }
                catch (HttpRequestException e) when (attempt < 200)
                {
                    // the node is down or was killed mid-request: the write may or may not have reached the log
                    _httpRetries++;
                    _lastHttpProblem = $"{node.Name} {e.Message}";
                }
                catch (TaskCanceledException) when (attempt < 200)
                {
                    _httpRetries++;
                    _lastHttpProblem = $"{node.Name} timed out";
                }

                await Task.Delay(50, CancellationToken.None);
            }
        }
    }

    /// <summary>The ETL topic ends at each document's last version (or a tombstone); a resent copy has its first copy's id and body.</summary>
    private void VerifyKafkaEtl(string bootstrap, string topic, ClusterModel model)
    {
        var config = new ConsumerConfig
        {
            BootstrapServers = bootstrap, GroupId = $"verify-{Guid.NewGuid():N}", AutoOffsetReset = AutoOffsetReset.Earliest, EnableAutoCommit = false,
        };
        var deadline = DateTime.UtcNow + ConvergeTimeout;
        var last = new Dictionary<string, string?>(StringComparer.Ordinal);
        var byEventId = new Dictionary<string, string?>(StringComparer.Ordinal);
        var duplicates = 0;
        using var consumer = new ConsumerBuilder<string, byte[]?>(config).Build();
        consumer.Subscribe(topic);
        var expected = model.ExpectedAll(["Orders", "Events", "Notes"]);
        while (true)
        {
            var result = consumer.Consume(TimeSpan.FromSeconds(1));
            if (result is not null)
            {
                var body = result.Message.Value is null ? null : ClusterModel.Canonical(result.Message.Value);
                var eventId = Header(result.Message.Headers, "ce_id")
                    ?? throw new Xunit.Sdk.XunitException($"ETL message for {result.Message.Key} has no ce_id header");
                if (byEventId.TryGetValue(eventId, out var first))
                {
                    duplicates++;
                    Assert.True(first == body, $"CloudEvents id {eventId} was sent with two different bodies: {first} and {body}");
                }

                byEventId[eventId] = body;
                last[result.Message.Key] = body;
                continue;
            }

            if (ClusterModel.FirstDifferenceWithTombstones(expected, last) is not { } difference)
            {
                output.WriteLine($"Kafka ETL: {byEventId.Count} distinct events, {duplicates} resent; ends at every document's last version");
                return;
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new Xunit.Sdk.XunitException($"Kafka ETL did not reach the last versions: {difference}");
            }
        }
    }

    private async Task VerifyRabbitMqEtlAsync(IConnection connection, string queue, ClusterModel model)
    {
        await using var channel = await connection.CreateChannelAsync();
        var deadline = DateTime.UtcNow + ConvergeTimeout;
        var last = new Dictionary<string, string?>(StringComparer.Ordinal);
        var byEventId = new Dictionary<string, string?>(StringComparer.Ordinal);
        var expected = model.ExpectedAll(["Orders", "Notes"]);
        while (true)
        {
            var result = await channel.BasicGetAsync(queue, autoAck: true);
            if (result is not null)
            {
                var headers = result.BasicProperties.Headers;
                var eventId = AmqpHeader(headers, "cloudEvents:id") ?? result.BasicProperties.MessageId
                    ?? throw new Xunit.Sdk.XunitException("a RabbitMQ ETL message carries no CloudEvents id");
                var type = AmqpHeader(headers, "cloudEvents:type");
                var id = AmqpHeader(headers, "cloudEvents:subject") ?? throw new Xunit.Sdk.XunitException($"RabbitMQ ETL message {eventId} carries no cloudEvents:subject");
                var body = type == "ingest.document.deleted" ? null : ClusterModel.Canonical(result.Body.Span);
                if (byEventId.TryGetValue(eventId, out var first))
                {
                    Assert.True(first == body, $"CloudEvents id {eventId} ({type}) was sent with two different bodies: {first} and {body}");
                }

                byEventId[eventId] = body;
                last[id] = body;
                continue;
            }

            if (ClusterModel.FirstDifferenceWithTombstones(expected, last) is not { } difference)
            {
                output.WriteLine($"RabbitMQ ETL: {byEventId.Count} distinct events; ends at every document's last version");
                return;
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new Xunit.Sdk.XunitException($"RabbitMQ ETL did not reach the last versions: {difference}");
            }

            await Task.Delay(500);
        }
    }

    private static string? Header(Confluent.Kafka.Headers? headers, string name) =>
        headers is not null && headers.TryGetLastBytes(name, out var value) ? Encoding.UTF8.GetString(value) : null;

    private static string? AmqpHeader(IDictionary<string, object?>? headers, string name) =>
        headers is not null && headers.TryGetValue(name, out var value)
            ? value switch { byte[] bytes => Encoding.UTF8.GetString(bytes), string text => text, _ => value?.ToString() }
            : null;

    private static string Tail(string log) => log.Length <= 6_000 ? log : log[^6_000..];
}
