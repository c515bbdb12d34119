using System.Globalization;
using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Testing;
using Ingest.Server.Hosting;
using Ingest.Server.Tests.Etl;
using Ingest.Testing.Brokers;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Crash;

/// <summary>
/// The server is killed with SIGKILL at random moments while an ETL task sends to Kafka, and the
/// store changes between lives. Afterwards every document's last change was delivered, and
/// de-duplicating by CloudEvents id leaves each document's events in etag order.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlCrashTests(BrokerFixture brokers, ITestOutputHelper output) : IDisposable
{
    private const int Kills = 10;
    private const int InitialDocuments = 20_000;
    private const int ChangesPerLife = 3_000;
    private const string TaskName = "crash";
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    private readonly TestDirectory _directory = new();

    [Fact]
    public async Task Every_change_is_delivered_at_least_once_in_document_order_across_sigkills()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var kafka = await brokers.GetKafkaAsync();
        var topic = $"etl-crash-{Guid.NewGuid():N}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = 3, ReplicationFactor = 1 }]);
        }

        string[] settings =
        [
            $"--Ingest:Etl:0:Name={TaskName}",
            "--Ingest:Etl:0:Collections:0=Orders",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Etl:0:Kafka:Topic={topic}",
        ];

        // The last change of every document, as the test made them: id -> (etag, deleted).
        var final = new Dictionary<string, (long Etag, bool Deleted)>();
        var live = new List<string>();
        Apply(Enumerable.Range(0, InitialDocuments).Select(static i => ($"orders/{i}", false)).ToList(), final, live);

        for (var kill = 1; kill <= Kills; kill++)
        {
            using (var server = ServerProcess.Start(_directory.Path, settings))
            {
                server.WaitFor($"ETL task '{TaskName}' started", StartTimeout);
                Thread.Sleep(random.Next(100, 2_500));
                server.Kill();
            }

            var changes = new List<(string Id, bool Delete)>();
            for (var i = 0; i < ChangesPerLife; i++)
            {
                if (random.Next(5) == 0 && live.Count > 0)
                {
                    var victim = random.Next(live.Count);
                    changes.Add((live[victim], true));
                    live.RemoveAt(victim);
                }
                else
                {
                    changes.Add(($"orders/{random.Next(InitialDocuments + 2_000)}", false));
                }
            }

            var acknowledged = Apply(changes, final, live);
            output.WriteLine($"kill {kill}: acknowledged etag {acknowledged}");
        }

        for (var run = 1; ; run++)
        {
            Assert.True(run <= 10, "the task did not catch up within 10 graceful runs");
            using (var server = ServerProcess.Start(_directory.Path, settings))
            {
                server.WaitFor($"ETL task '{TaskName}' started", StartTimeout);
                await Task.Delay(TimeSpan.FromSeconds(3));
                Assert.Equal(0, server.Stop(TimeSpan.FromSeconds(30)));
            }

            using var store = OpenStore();
            if (store.GetConsumers().Single().AcknowledgedEtag == store.LastEtag)
            {
                break;
            }
        }

        var records = ConsumeAll(kafka.BootstrapServers, topic);
        output.WriteLine($"{records.Count} records for {final.Count} documents");
        var byKey = records.GroupBy(static r => r.Key).ToDictionary(static g => g.Key, static g => g.ToList());
        foreach (var (id, (etag, deleted)) in final)
        {
            Assert.True(byKey.TryGetValue(id, out var events), $"nothing arrived for {id}");
            var firstSeen = events.Select(static e => e.Id).Distinct().Select(EtagOf).ToList();
            Assert.True(firstSeen.SequenceEqual(firstSeen.Order()), $"{id}: events out of etag order: {string.Join(", ", firstSeen)}");
            var last = events[^1];
            Assert.Equal($"{id}@{etag}", last.Id);
            Assert.Equal(deleted ? DocumentEventTypes.Deleted : DocumentEventTypes.Put, last.Type);
            Assert.Equal(deleted, last.Value is null);
        }

        Assert.Equal(final.Count, byKey.Count);
    }

    /// <summary>Writes the changes to the stopped server's store in one batch; returns the task's acknowledged etag.</summary>
    private long Apply(IReadOnlyList<(string Id, bool Delete)> changes, Dictionary<string, (long, bool)> final, List<string> live)
    {
        using var store = OpenStore();
        var batch = new WriteBatch();
        foreach (var (id, delete) in changes)
        {
            if (delete)
            {
                batch.Delete(id);
            }
            else
            {
                batch.Put(id, "Orders", $$"""{"n":{{final.Count.ToString(CultureInfo.InvariantCulture)}}}""");
            }
        }

        // Deletes only name live documents, so every operation takes the next etag.
        var etag = store.Write(batch).FirstEtag;
        foreach (var (id, delete) in changes)
        {
            if (!delete && (!final.TryGetValue(id, out var previous) || previous.Item2))
            {
                live.Add(id);
            }

            final[id] = (etag++, delete);
        }

        return store.GetConsumers().SingleOrDefault()?.AcknowledgedEtag ?? 0;
    }

    private static List<(string Key, string Id, string Type, byte[]? Value)> ConsumeAll(string bootstrap, string topic)
    {
        var config = new ConsumerConfig { BootstrapServers = bootstrap, GroupId = $"check-{Guid.NewGuid():N}", AutoOffsetReset = AutoOffsetReset.Earliest, EnableAutoCommit = false };
        using var consumer = new ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        long expected = 0;
        for (var p = 0; p < 3; p++)
        {
            expected += consumer.QueryWatermarkOffsets(new TopicPartition(topic, p), TimeSpan.FromSeconds(10)).High.Value;
        }

        consumer.Subscribe(topic);
        var records = new List<(string, string, string, byte[]?)>();
        var deadline = DateTime.UtcNow + EtlTestKit.Patience;
        while (records.Count < expected && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(500))?.Message is { } message)
            {
                var cloudEvent = KafkaCloudEventBinding.Decode(message.Headers.Select(static h => new KeyValuePair<string, byte[]?>(h.Key, h.GetValueBytes())), message.Value);
                records.Add((Encoding.UTF8.GetString(message.Key), cloudEvent.Id!, cloudEvent.Type!, message.Value));
            }
        }

        Assert.Equal(expected, records.Count);
        return records;
    }

    private static long EtagOf(string eventId) => long.Parse(eventId[(eventId.LastIndexOf('@') + 1)..], CultureInfo.InvariantCulture);

    private DocumentStore OpenStore() => DocumentStore.Open(Path.Combine(_directory.Path, StoreRegistration.StoreFolder));

    public void Dispose() => _directory.Dispose();
}
