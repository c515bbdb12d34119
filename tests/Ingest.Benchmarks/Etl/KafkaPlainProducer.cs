using System.Diagnostics;
using System.Text;
using Confluent.Kafka;
using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// The baseline for <c>etl-kafka</c>: a plain Confluent producer with the ETL task's producer
/// settings (idempotent, acks=all, linger 5 ms, no compression) sending the same documents, key =
/// document id, value = the JSON, no headers; done when every delivery report is in.
/// </summary>
internal static class KafkaPlainProducer
{
    public static EtlMeasurement Run(EtlTarget target, OrderDataset data, int count)
    {
        var config = new ProducerConfig
        {
            BootstrapServers = target.Kafka,
            Acks = Acks.All,
            EnableIdempotence = true,
            LingerMs = 5,
            MessageTimeoutMs = 30_000,
        };
        using var producer = new ProducerBuilder<byte[], byte[]>(config).SetLogHandler(static (_, _) => { }).Build();
        var pending = count;
        Error? failure = null;
        using var done = new ManualResetEventSlim();
        void OnDelivered(DeliveryReport<byte[], byte[]> report)
        {
            if (report.Error.IsError)
            {
                Interlocked.CompareExchange(ref failure, report.Error, null);
            }

            if (Interlocked.Decrement(ref pending) == 0)
            {
                done.Set();
            }
        }

        long bytes = 0;
        var started = Stopwatch.GetTimestamp();
        for (var i = 0; i < count; i++)
        {
            var message = new Message<byte[], byte[]> { Key = Encoding.UTF8.GetBytes(data.Ids[i]), Value = data.Bodies[i] };
            bytes += data.Bodies[i].Length;
            while (true)
            {
                try
                {
                    producer.Produce(target.Name, message, OnDelivered);
                    break;
                }
                catch (ProduceException<byte[], byte[]> ex) when (ex.Error.Code == ErrorCode.Local_QueueFull)
                {
                    producer.Poll(TimeSpan.FromMilliseconds(5));
                }
            }
        }

        if (!done.Wait(TimeSpan.FromMinutes(10)))
        {
            throw new TimeoutException($"{pending} of {count} messages not acknowledged within 10 minutes");
        }

        var elapsed = Stopwatch.GetElapsedTime(started);
        return failure is { } error ? throw new InvalidOperationException($"Kafka refused a message: {error.Reason}") : new EtlMeasurement(count, bytes, elapsed);
    }
}
