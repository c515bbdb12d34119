using System.Diagnostics;
using Ingest.Benchmarks.Documents;
using RabbitMQ.Client;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// The baseline for <c>etl-rabbitmq</c>: a plain publisher with confirms, mandatory and persistent
/// like the ETL task's, sending the same documents to the same kind of exchange, in confirm windows
/// of <see cref="ConfirmWindow"/> (the ETL task waits for each of its batches the same way).
/// </summary>
internal static class RabbitMqPlainPublisher
{
    public const int ConfirmWindow = 1_000;

    public static async Task<EtlMeasurement> RunAsync(EtlTarget target, OrderDataset data, int count)
    {
        var factory = new ConnectionFactory { Uri = target.RabbitMq!, AutomaticRecoveryEnabled = false };
        await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
        await using var channel = await connection.CreateChannelAsync(
            new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true)).ConfigureAwait(false);
        var window = new List<Task>(ConfirmWindow);
        long bytes = 0;
        var started = Stopwatch.GetTimestamp();
        for (var i = 0; i < count; i++)
        {
            var properties = new BasicProperties { ContentType = "application/json", MessageId = data.Ids[i], DeliveryMode = DeliveryModes.Persistent };
            bytes += data.Bodies[i].Length;
            window.Add(channel.BasicPublishAsync(target.Name, EtlTarget.RoutingKey, mandatory: true, properties, data.Bodies[i]).AsTask());
            if (window.Count == ConfirmWindow)
            {
                await Task.WhenAll(window).ConfigureAwait(false);
                window.Clear();
            }
        }

        await Task.WhenAll(window).ConfigureAwait(false);
        var elapsed = Stopwatch.GetElapsedTime(started);
        await channel.CloseAsync().ConfigureAwait(false);
        await connection.CloseAsync().ConfigureAwait(false);
        return new EtlMeasurement(count, bytes, elapsed);
    }
}
