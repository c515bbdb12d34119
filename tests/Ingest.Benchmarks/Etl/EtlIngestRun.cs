using System.Diagnostics;
using Ingest.Benchmarks.Documents;
using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// The <c>ingest</c> system: the server's own ETL task loop (<see cref="EtlTaskRunner"/>, as the
/// host runs it) over a durable store of pre-loaded orders, timed from its start until its recorded
/// progress (everything acknowledged by the broker) reaches the store's last etag.
/// </summary>
internal static class EtlIngestRun
{
    /// <summary>The simple transform of the <c>-transform</c> workloads: one message per order, reshaped to a few fields.</summary>
    public const string TransformScript =
        "function transform(order, meta) { return { body: { id: meta.id, company: order.Company, status: order.Status, total: order.Total, lines: order.Lines.length, city: order.ShipTo.City } }; }";

    private const int LoadBatch = 5_000;
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(5);
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(15);

    /// <summary>A durable store holding the first <paramref name="count"/> orders (not timed).</summary>
    public static DocumentStore LoadStore(string directory, OrderDataset data, int count)
    {
        var store = DocumentStore.Open(directory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.Durable } });
        var batch = new WriteBatch();
        for (var i = 0; i < count; i++)
        {
            batch.Put(data.Ids[i], OrderDataset.Collection, data.Bodies[i]);
            if (batch.Count == LoadBatch || i == count - 1)
            {
                store.WriteAsync(batch).GetAwaiter().GetResult();
                batch.Clear();
            }
        }

        return store;
    }

    /// <summary>Runs a new task (its own consumer, so it starts at etag 0) until it has sent the whole store.</summary>
    public static async Task<EtlMeasurement> RunAsync(DocumentStore store, string directory, EtlTarget target, bool transform, long bytes)
    {
        var name = $"bench-{Guid.NewGuid():N}";
        var definition = new EtlTaskDefinition
        {
            Name = name,
            Collections = [OrderDataset.Collection],
            Script = transform ? TransformScript : null,
            Kafka = target.Kafka is { } kafka ? new EtlKafkaSettings { BootstrapServers = kafka, Topic = target.Name } : null,
            RabbitMq = target.RabbitMq is { } rabbit ? new EtlRabbitMqSettings { Uri = rabbit.ToString(), Exchange = target.Name, RoutingKey = EtlTarget.RoutingKey } : null,
        };
        var errors = new EtlErrorLog(Path.Combine(directory, $"{name}.errors.json"));
        var runner = new EtlTaskRunner(definition, store, errors, EtlService.CreateDestination, NullLogger.Instance, TimeProvider.System);
        await using (runner.ConfigureAwait(false))
        {
            var last = store.LastEtag;
            var started = Stopwatch.GetTimestamp();
            await runner.StartAsync().ConfigureAwait(false);
            EtlTaskStatus status;
            while ((status = runner.GetStatus()).LastSentEtag < last)
            {
                if (status.State == EtlTaskState.Errored || Stopwatch.GetElapsedTime(started) > Timeout)
                {
                    throw new InvalidOperationException($"the task sent up to etag {status.LastSentEtag} of {last} ({status.State}: {status.LastError ?? "no error"})");
                }

                await Task.Delay(PollInterval).ConfigureAwait(false);
            }

            var elapsed = Stopwatch.GetElapsedTime(started);
            if (status.Errors > 0)
            {
                throw new InvalidOperationException($"the task recorded {status.Errors} transform errors; last error: {status.LastError ?? "none"}");
            }

            if (status.LastError is { } retried)
            {
                Console.WriteLine($"note: the task retried a batch during the run: {retried}");
            }

            await store.UnregisterConsumerAsync(runner.ConsumerName).ConfigureAwait(false);
            return new EtlMeasurement(status.MessagesSent, bytes, elapsed);
        }
    }
}
