using System.Diagnostics;
using Confluent.Kafka;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// The baseline: a plain Confluent.Kafka consumer in a fresh group that reads every message of the
/// topic and does nothing with it. Keys and values arrive as byte arrays, the copies the client
/// forces on the ingest source too, so the ratio isolates what ingesting adds.
/// </summary>
internal static class KafkaPlainConsumer
{
    public static IngestionMeasurement Run(string bootstrapServers, PreloadedData data, TimeSpan timeout)
    {
        var config = new ConsumerConfig
        {
            BootstrapServers = bootstrapServers,
            GroupId = KafkaPreload.GroupFor(data.Destination, "plain"),
            AutoOffsetReset = AutoOffsetReset.Earliest,
            EnableAutoCommit = true,
        };
        using var consumer = new ConsumerBuilder<byte[], byte[]>(config).Build();
        var cpuStarted = ProcessCpu.Now();
        var threadsStarted = ProcessCpu.ByThreadName();
        var started = Stopwatch.GetTimestamp();
        consumer.Subscribe(data.Destination);
        long count = 0;
        long bytes = 0;
        long first = 0;
        while (count < data.Documents)
        {
            var record = consumer.Consume(TimeSpan.FromMilliseconds(100));
            if (record is null)
            {
                if (Stopwatch.GetElapsedTime(started) > timeout)
                {
                    throw new TimeoutException($"read {count} of {data.Documents} messages from {data.Destination} in {timeout}");
                }

                continue;
            }

            if (count == 0)
            {
                first = Stopwatch.GetTimestamp();
            }

            count++;
            bytes += record.Message.Value.Length;
        }

        var end = Stopwatch.GetTimestamp();
        var cpu = ProcessCpu.Now() - cpuStarted;
        var threads = ProcessCpu.Between(threadsStarted, ProcessCpu.ByThreadName());
        consumer.Close();
        return new IngestionMeasurement(count, bytes, Stopwatch.GetElapsedTime(started, first), Stopwatch.GetElapsedTime(first, end)) { ProcessCpu = cpu, ThreadCpu = threads };
    }
}
