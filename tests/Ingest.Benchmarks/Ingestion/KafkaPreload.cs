using System.Diagnostics;
using Confluent.Kafka;
using Confluent.Kafka.Admin;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// Creates a fresh 3-partition topic and fills it with generated profiles: idempotent producer,
/// acks=all, lz4 compression (what a production producer would use for JSON), key = document id.
/// </summary>
internal static class KafkaPreload
{
    public const int Partitions = 3;
    public const string Compression = "lz4";

    public static async Task<PreloadedData> RunAsync(string bootstrapServers, string topic, int count, int seed)
    {
        var started = Stopwatch.StartNew();
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = Partitions, ReplicationFactor = 1 }]).ConfigureAwait(false);
        }

        var config = new ProducerConfig
        {
            BootstrapServers = bootstrapServers,
            EnableIdempotence = true,
            Acks = Acks.All,
            CompressionType = CompressionType.Lz4,
            LingerMs = 10,
            BatchSize = 1024 * 1024,
        };
        long bytes = 0;
        long failed = 0;
        string? firstError = null;
        var generator = new ProfileDocuments(seed);
        using (var producer = new ProducerBuilder<string, byte[]>(config).Build())
        {
            void OnDelivered(DeliveryReport<string, byte[]> report)
            {
                if (report.Error.IsError && Interlocked.Increment(ref failed) == 1)
                {
                    firstError = report.Error.Reason;
                }
            }

            for (var i = 0; i < count; i++)
            {
                var (id, body) = generator.Next();
                bytes += body.Length;
                var message = new Message<string, byte[]> { Key = id, Value = body };
                while (true)
                {
                    try
                    {
                        producer.Produce(topic, message, OnDelivered);
                        break;
                    }
                    catch (ProduceException<string, byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
                    {
                        // The client's queue is full: serve delivery reports until there is room.
                        producer.Poll(TimeSpan.FromMilliseconds(50));
                    }
                }
            }

            producer.Flush(TimeSpan.FromMinutes(5));
        }

        if (Interlocked.Read(ref failed) > 0)
        {
            throw new InvalidOperationException($"{failed} of {count} messages to {topic} were not delivered: {firstError}");
        }

        return new PreloadedData(topic, count, bytes, started.Elapsed);
    }

    /// <summary>The consumer group a reader of <paramref name="topic"/> uses; named after the topic so clean-up finds it.</summary>
    public static string GroupFor(string topic, string reader) => $"{topic}-{reader}";

    /// <summary>Deletes the topic and the groups that read it.</summary>
    public static async Task DeleteTopicAsync(string bootstrapServers, string topic)
    {
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
        await admin.DeleteTopicsAsync([topic]).ConfigureAwait(false);
        var metadata = admin.ListGroups(TimeSpan.FromSeconds(10));
        var groups = metadata.Where(g => g.Group.StartsWith(topic + "-", StringComparison.Ordinal)).Select(g => g.Group).ToList();
        if (groups.Count > 0)
        {
            await admin.DeleteGroupsAsync(groups).ConfigureAwait(false);
        }
    }
}
