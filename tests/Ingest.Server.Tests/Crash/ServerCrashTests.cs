using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Documents;
using Ingest.Server.Hosting;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Crash;

/// <summary>
/// The server runs as a child process while a producer streams numbered messages, and is killed
/// with SIGKILL at random moments, then restarted. Kafka must apply every message exactly once
/// (checked per message, through positions, documents and etags after every kill); RabbitMQ
/// must lose none.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class ServerCrashTests(BrokerFixture brokers, ITestOutputHelper output) : IDisposable
{
    private const int Kills = 10;
    private const int Partitions = 3;
    private const int MessagesPerSecond = 1_500;
    private const string SourceName = "crash";
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    private readonly TestDirectory _directory = new();

    [Fact]
    public async Task Kafka_messages_are_applied_exactly_once_across_sigkills()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var kafka = await brokers.GetKafkaAsync();
        var topic = $"crash-{Guid.NewGuid():N}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = Partitions, ReplicationFactor = 1 }]);
        }

        string[] settings =
        [
            $"--Ingest:Sources:Kafka:0:Name={SourceName}",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={topic}",
            // Static membership: a restarted server takes its partitions back at once instead of
            // waiting for the killed member's session to time out.
            $"--Ingest:Sources:Kafka:0:Settings:group.instance.id={topic}-server",
            "--Ingest:Sources:Kafka:0:Settings:session.timeout.ms=6000",
            "--Ingest:Batching:MaxMessages=200",
        ];

        // Each message goes to a chosen partition, so (partition, offset) -> sequence is known
        // from the delivery reports, and a stored position says exactly which messages must exist.
        var delivered = new ConcurrentDictionary<(int Partition, long Offset), int>();
        using var stop = new CancellationTokenSource();
        var producing = Task.Run(() => ProduceKafka(kafka.BootstrapServers, topic, delivered, stop.Token));

        for (var kill = 1; kill <= Kills; kill++)
        {
            using (var server = ServerProcess.Start(_directory.Path, settings))
            {
                server.WaitFor($"Source kafka '{SourceName}' started", StartTimeout);
                Thread.Sleep(random.Next(200, 2_500));
                server.Kill();
            }

            var applied = VerifyKafkaExactlyOnce(topic, delivered);
            output.WriteLine($"kill {kill}: {applied} messages applied, {delivered.Count} produced");
        }

        await stop.CancelAsync();
        var produced = await producing;
        var ends = EndOffsets(delivered);

        var total = await RunUntilAsync(settings, $"Source kafka '{SourceName}' started", () =>
        {
            using var store = OpenStore();
            for (var p = 0; p < Partitions; p++)
            {
                var stored = store.GetSourcePosition($"{SourceName}/{topic}", p)?.Position.NextOffset ?? 0;
                if (stored < ends[p])
                {
                    return false;
                }
            }

            return true;
        });
        output.WriteLine($"caught up after {total} graceful runs");
        Assert.Equal(produced, VerifyKafkaExactlyOnce(topic, delivered));
    }

    [Fact]
    public async Task RabbitMq_messages_all_survive_sigkills()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"crash-{Guid.NewGuid():N}";
        string[] settings =
        [
            $"--Ingest:Sources:RabbitMq:0:Name={SourceName}",
            $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}",
            $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}",
            "--Ingest:Batching:MaxMessages=200",
        ];

        var factory = new ConnectionFactory { Uri = rabbit.Uri };
        await using var connection = await factory.CreateConnectionAsync();
        await using (var declare = await connection.CreateChannelAsync())
        {
            await declare.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
        }

        using var stop = new CancellationTokenSource();
        var producing = PublishRabbitMqAsync(connection, queue, stop.Token);
        for (var kill = 1; kill <= Kills; kill++)
        {
            using (var server = ServerProcess.Start(_directory.Path, settings))
            {
                server.WaitFor($"Source rabbitmq '{SourceName}' started", StartTimeout);
                Thread.Sleep(random.Next(200, 2_500));
                server.Kill();
            }

            using var store = OpenStore();
            output.WriteLine($"kill {kill}: {store.GetStats().DocumentCount} documents");
        }

        await stop.CancelAsync();
        var published = await producing;
        await RunUntilAsync(settings, $"Source rabbitmq '{SourceName}' started", () =>
        {
            using var store = OpenStore();
            return store.GetStats().DocumentCount >= published;
        });

        using (var store = OpenStore())
        {
            var missing = new List<int>();
            for (var seq = 0; seq < published; seq++)
            {
                var document = store.Get(Id("r", seq));
                if (document is null || Sequence(document) != seq)
                {
                    missing.Add(seq);
                }
            }

            Assert.True(missing.Count == 0, $"{missing.Count} of {published} messages missing, first: {string.Join(", ", missing.Take(10))}");
            Assert.Equal(published, store.GetStats().DocumentCount);
        }

        await using var check = await connection.CreateChannelAsync();
        Assert.Equal(0u, await check.MessageCountAsync(queue));
        await check.QueueDeleteAsync(queue);
    }

    public void Dispose() => _directory.Dispose();

    /// <summary>
    /// The store's positions say how many messages of each partition were applied: exactly those
    /// must be present, each once. Every put takes a new etag, so etags == applied messages proves
    /// no message was applied twice. Returns the number applied.
    /// </summary>
    private long VerifyKafkaExactlyOnce(string topic, ConcurrentDictionary<(int Partition, long Offset), int> delivered)
    {
        using var store = OpenStore();
        long applied = 0;
        for (var p = 0; p < Partitions; p++)
        {
            var next = store.GetSourcePosition($"{SourceName}/{topic}", p)?.Position.NextOffset ?? 0;
            for (long offset = 0; offset < next; offset++)
            {
                var seq = WaitForDeliveryReport(delivered, p, offset);
                var document = store.Get(Id("k", seq));
                Assert.True(document is not null, $"message {seq} (partition {p}, offset {offset}) is below the stored position {next} but missing");
                Assert.Equal(seq, Sequence(document));
            }

            applied += next;
        }

        Assert.Equal(applied, store.GetStats().DocumentCount);
        Assert.Equal(applied, store.LastEtag);
        return applied;
    }

    private static int WaitForDeliveryReport(ConcurrentDictionary<(int, long), int> delivered, int partition, long offset)
    {
        // The server can consume a message before its producer has seen the acknowledgement.
        for (var i = 0; i < 100; i++)
        {
            if (delivered.TryGetValue((partition, offset), out var seq))
            {
                return seq;
            }

            Thread.Sleep(50);
        }

        throw new Xunit.Sdk.XunitException($"no delivery report for partition {partition} offset {offset}");
    }

    private static long[] EndOffsets(ConcurrentDictionary<(int Partition, long Offset), int> delivered)
    {
        var ends = new long[Partitions];
        foreach (var key in delivered.Keys)
        {
            ends[key.Partition] = Math.Max(ends[key.Partition], key.Offset + 1);
        }

        return ends;
    }

    private static int ProduceKafka(string bootstrap, string topic, ConcurrentDictionary<(int, long), int> delivered, CancellationToken stop)
    {
        var config = new ProducerConfig { BootstrapServers = bootstrap, EnableIdempotence = true, Acks = Acks.All, LingerMs = 5 };
        using var producer = new ProducerBuilder<string, byte[]>(config).Build();
        var seq = 0;
        var failures = 0;
        while (!stop.IsCancellationRequested)
        {
            for (var i = 0; i < MessagesPerSecond / 100; i++, seq++)
            {
                var current = seq;
                var partition = new TopicPartition(topic, new Partition(seq % Partitions));
                producer.Produce(partition, new Message<string, byte[]> { Key = Id("k", seq), Value = Body(seq) }, report =>
                {
                    if (report.Error.IsError)
                    {
                        Interlocked.Increment(ref failures);
                    }
                    else
                    {
                        delivered[(report.Partition.Value, report.Offset.Value)] = current;
                    }
                });
            }

            Thread.Sleep(10);
        }

        producer.Flush(TimeSpan.FromSeconds(30));
        Assert.Equal(0, failures);
        Assert.Equal(seq, delivered.Count);
        return seq;
    }

    private static async Task<int> PublishRabbitMqAsync(IConnection connection, string queue, CancellationToken stop)
    {
        await Task.Yield();
        var confirms = new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true);
        await using var channel = await connection.CreateChannelAsync(confirms);
        var seq = 0;
        var window = new List<Task>();
        while (!stop.IsCancellationRequested)
        {
            for (var i = 0; i < MessagesPerSecond / 100; i++, seq++)
            {
                var properties = new BasicProperties { MessageId = Id("r", seq), DeliveryMode = DeliveryModes.Persistent };
                window.Add(channel.BasicPublishAsync(string.Empty, queue, mandatory: true, properties, Body(seq)).AsTask());
            }

            await Task.WhenAll(window);
            window.Clear();
            await Task.Delay(10, CancellationToken.None);
        }

        return seq;
    }

    /// <summary>Runs the server and stops it gracefully (SIGTERM) until <paramref name="done"/> holds; returns the runs taken.</summary>
    private async Task<int> RunUntilAsync(string[] settings, string started, Func<bool> done)
    {
        for (var run = 1; run <= 20; run++)
        {
            using (var server = ServerProcess.Start(_directory.Path, settings))
            {
                server.WaitFor(started, StartTimeout);
                await Task.Delay(TimeSpan.FromSeconds(4));
                var exit = server.Stop(TimeSpan.FromSeconds(30));
                Assert.True(exit == 0, $"graceful stop exited with {exit}:\n{server.Log}");
            }

            if (done())
            {
                return run;
            }
        }

        throw new Xunit.Sdk.XunitException("the server did not catch up within 20 graceful runs");
    }

    private DocumentStore OpenStore() => DocumentStore.Open(Path.Combine(_directory.Path, StoreRegistration.StoreFolder));

    private static string Id(string prefix, int seq) => $"{prefix}-{seq.ToString(CultureInfo.InvariantCulture)}";

    private static byte[] Body(int seq) =>
        Encoding.UTF8.GetBytes($$"""{"seq":{{seq.ToString(CultureInfo.InvariantCulture)}},"text":"message {{seq.ToString(CultureInfo.InvariantCulture)}} of the crash stream","tags":["a","b"]}""");

    private static int Sequence(Document document)
    {
        using var json = JsonDocument.Parse(document.Body);
        return json.RootElement.GetProperty("seq").GetInt32();
    }
}
