using System.Diagnostics;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Tests.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>Topics, producing, a store in a temp directory and waiting, for the Kafka source tests.</summary>
internal static class KafkaTestKit
{
    public static string NewName(string prefix) => $"{prefix}-{Guid.NewGuid():N}";

    public static async Task CreateTopicAsync(string bootstrap, string topic, int partitions)
    {
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrap }).Build();
        await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = partitions, ReplicationFactor = 1 }]);
    }

    /// <summary>
    /// A new three-partition topic and a running server whose Kafka source stores it into the Orders collection:
    /// the setup of the tests that query or index documents while they stream in.
    /// </summary>
    public static async Task<(RunningServer Server, string Topic)> StartOrdersServerAsync(string bootstrap, string dataDirectory, string topicPrefix)
    {
        var topic = NewName(topicPrefix);
        await CreateTopicAsync(bootstrap, topic, 3);
        var server = await RunningServer.StartAsync(
            dataDirectory,
            $"--Ingest:Sources:Kafka:0:BootstrapServers={bootstrap}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            "--Ingest:Sources:Kafka:0:Collection=Orders");
        return (server, topic);
    }

    public static IProducer<byte[]?, byte[]?> Producer(string bootstrap, int lingerMs = 5) =>
        new ProducerBuilder<byte[]?, byte[]?>(new ProducerConfig
        {
            BootstrapServers = bootstrap,
            EnableIdempotence = true,
            Acks = Acks.All,
            LingerMs = lingerMs,
            MessageTimeoutMs = 180_000,
        }).SetLogHandler(static (_, _) => { }).Build();

    public static Message<byte[]?, byte[]?> Record(string? key, string? value, params (string Name, string? Value)[] headers)
    {
        var message = new Message<byte[]?, byte[]?>
        {
            Key = key is null ? null : System.Text.Encoding.UTF8.GetBytes(key),
            Value = value is null ? null : System.Text.Encoding.UTF8.GetBytes(value),
        };
        if (headers.Length > 0)
        {
            message.Headers = [];
            foreach (var (name, headerValue) in headers)
            {
                message.Headers.Add(name, headerValue is null ? null : System.Text.Encoding.UTF8.GetBytes(headerValue));
            }
        }

        return message;
    }

    /// <summary>Produces every record and returns where each landed.</summary>
    public static async Task<TopicPartitionOffset[]> ProduceAsync(string bootstrap, string topic, IReadOnlyList<Message<byte[]?, byte[]?>> records)
    {
        using var producer = Producer(bootstrap);
        var deliveries = new Task<DeliveryResult<byte[]?, byte[]?>>[records.Count];
        for (var i = 0; i < records.Count; i++)
        {
            deliveries[i] = producer.ProduceAsync(topic, records[i]);
        }

        var landed = new TopicPartitionOffset[records.Count];
        for (var i = 0; i < records.Count; i++)
        {
            landed[i] = (await deliveries[i]).TopicPartitionOffset;
        }

        return landed;
    }

    /// <summary>Each partition's end offset (the next offset to be written).</summary>
    public static Dictionary<int, long> EndOffsets(string bootstrap, string topic, int partitions)
    {
        using var consumer = new ConsumerBuilder<Ignore, Ignore>(new ConsumerConfig { BootstrapServers = bootstrap, GroupId = "probe" }).Build();
        var ends = new Dictionary<int, long>();
        for (var p = 0; p < partitions; p++)
        {
            ends[p] = consumer.QueryWatermarkOffsets(new TopicPartition(topic, p), TimeSpan.FromSeconds(10)).High.Value;
        }

        return ends;
    }

    /// <summary>The group's committed offsets per partition; -1 where none.</summary>
    public static async Task<Dictionary<int, long>> CommittedAsync(string bootstrap, string group, string topic, int partitions)
    {
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrap }).Build();
        var list = new List<TopicPartition>();
        for (var p = 0; p < partitions; p++)
        {
            list.Add(new TopicPartition(topic, p));
        }

        var results = await admin.ListConsumerGroupOffsetsAsync([new ConsumerGroupTopicPartitions(group, list)]);
        return results.Single().Partitions.ToDictionary(p => p.Partition.Value, p => p.Offset.Value);
    }

    public static Dictionary<int, long> StoredPositions(DocumentStore store, string origin)
    {
        var positions = new Dictionary<int, long>();
        foreach (var stored in store.GetSourcePositions(origin))
        {
            positions[stored.Position.Partition] = stored.Position.NextOffset;
        }

        return positions;
    }

    public static long StoredTotal(DocumentStore store, string origin)
    {
        long total = 0;
        foreach (var stored in store.GetSourcePositions(origin))
        {
            total += stored.Position.NextOffset;
        }

        return total;
    }

    public static async Task WaitUntilAsync(Func<bool> condition, TimeSpan timeout, string what)
    {
        var watch = Stopwatch.StartNew();
        while (!condition())
        {
            if (watch.Elapsed > timeout)
            {
                throw new TimeoutException($"Not within {timeout.TotalSeconds:0} s: {what}");
            }

            await Task.Delay(50);
        }
    }

    public static async Task WaitUntilAsync(Func<Task<bool>> condition, TimeSpan timeout, string what)
    {
        var watch = Stopwatch.StartNew();
        while (!await condition())
        {
            if (watch.Elapsed > timeout)
            {
                throw new TimeoutException($"Not within {timeout.TotalSeconds:0} s: {what}");
            }

            await Task.Delay(200);
        }
    }

    public static KafkaSourceOptions Options(string bootstrap, string topic, string group) => new()
    {
        BootstrapServers = bootstrap,
        Topics = [topic],
        GroupId = group,
        // Quick failure detection, so a crashed member's partitions come back soon.
        Settings = new() { ["session.timeout.ms"] = "6000", ["heartbeat.interval.ms"] = "1000" },
    };

    public static KafkaSource Source(string name, KafkaSourceOptions options, DocumentStore store, BatchingOptions? batching = null, ILoggerFactory? loggers = null) =>
        new(name, options, store, batching ?? new BatchingOptions(), loggers ?? NullLoggerFactory.Instance, TimeProvider.System);
}
