using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.Logging.Abstractions;
using CloudEvent = CloudNative.CloudEvents.CloudEvent;

namespace Ingest.Server.Tests.Etl;

/// <summary>Runs ETL tasks against a store and reads what reached the brokers, for the ETL tests.</summary>
internal static class EtlTestKit
{
    public const string Source = "/ingest/test";
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    public static async Task<EtlTaskRunner> StartAsync(DocumentStore store, EtlTaskDefinition definition, string errorFile)
    {
        var runner = new EtlTaskRunner(definition, store, new EtlErrorLog(errorFile), EtlService.CreateDestination, NullLogger.Instance, TimeProvider.System);
        await runner.StartAsync();
        return runner;
    }

    /// <summary>Waits until the task has recorded progress up to the store's last etag.</summary>
    public static async Task WaitCaughtUpAsync(EtlTaskRunner runner, DocumentStore store)
    {
        using var timeout = new CancellationTokenSource(Patience);
        while (runner.GetStatus().LastSentEtag < store.LastEtag)
        {
            await Task.Delay(50, timeout.Token);
        }
    }

    /// <summary>Reads every record of the topic until <paramref name="count"/> arrived, each decoded as a CloudEvent.</summary>
    public static List<(string Key, int Partition, CloudEvent Event, Headers Headers)> ConsumeKafka(string bootstrap, string topic, int count)
    {
        var config = new ConsumerConfig { BootstrapServers = bootstrap, GroupId = $"etl-test-{Guid.NewGuid():N}", AutoOffsetReset = AutoOffsetReset.Earliest, EnableAutoCommit = false };
        using var consumer = new ConsumerBuilder<byte[], byte[]?>(config).SetLogHandler(static (_, _) => { }).Build();
        consumer.Subscribe(topic);
        var records = new List<(string, int, CloudEvent, Headers)>();
        var deadline = DateTime.UtcNow + Patience;
        while (records.Count < count && DateTime.UtcNow < deadline)
        {
            var result = consumer.Consume(TimeSpan.FromMilliseconds(500));
            if (result?.Message is { } message)
            {
                var headers = message.Headers.Select(static h => new KeyValuePair<string, byte[]?>(h.Key, h.GetValueBytes()));
                records.Add((Encoding.UTF8.GetString(message.Key), result.Partition.Value, KafkaCloudEventBinding.Decode(headers, message.Value), message.Headers));
            }
        }

        consumer.Close();
        Assert.True(records.Count >= count, $"only {records.Count} of {count} records arrived on '{topic}' within {Patience.TotalSeconds} s");
        return records;
    }

    /// <summary>A new topic of three partitions on the shared test broker.</summary>
    public static async Task<(string Bootstrap, string Topic)> NewKafkaTopicAsync(BrokerFixture brokers, string prefix)
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = KafkaTestKit.NewName(prefix);
        await KafkaTestKit.CreateTopicAsync(kafka.BootstrapServers, topic, 3);
        return (kafka.BootstrapServers, topic);
    }

    /// <summary>A task sending the Orders collection to a Kafka topic, with the tests' CloudEvents source.</summary>
    public static EtlTaskDefinition KafkaTask(string name, string bootstrap, string topic) => new()
    {
        Name = name,
        Collections = ["orders"],
        Kafka = new EtlKafkaSettings { BootstrapServers = bootstrap, Topic = topic },
        Source = Source,
    };

    public static WriteBatch Orders(int from, int to, Func<int, string>? body = null)
    {
        var batch = new WriteBatch();
        for (var i = from; i <= to; i++)
        {
            batch.Put($"orders/{i}", "Orders", body?.Invoke(i) ?? $$"""{"N":{{i}},"Region":"eu"}""");
        }

        return batch;
    }
}
