using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Reporting;
using Ingest.Server.Sources;
using Microsoft.Extensions.Logging;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// <c>ingest --kafka HOST:PORT --rabbitmq URI [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c>:
/// the service's Kafka and RabbitMQ sources against plain consumers of the same pre-loaded data.
/// </summary>
internal static class IngestionCommand
{
    public const string Usage =
        "ingest --kafka HOST:PORT --rabbitmq URI [--quick] [--json PATH] [--dir DIR] [--systems ingest,plain-consumer] [--workloads kafka-ingest,kafka-ingest-transform,kafka-ingest-under-queries,rabbitmq-ingest] [--seed N]";

    public const string KafkaIngest = "kafka-ingest";

    /// <summary>
    /// The Kafka source with the query engine and one index on the store, idle (system <see cref="IngestIdle"/>) and
    /// then under <see cref="QueryLoad.Clients"/> clients of heavy queries (system <see cref="Ingest"/>): the ratio is
    /// what the query limits leave of ingestion (ingest system only; target >= 0.7x).
    /// </summary>
    public const string KafkaIngestUnderQueries = "kafka-ingest-under-queries";
    public const string IngestIdle = "ingest-idle";

    /// <summary>The Kafka source with a simple transform script, on the same topic: what the script costs (ingest system only).</summary>
    public const string KafkaIngestTransform = "kafka-ingest-transform";
    public const string RabbitMqIngest = "rabbitmq-ingest";
    public const string Ingest = "ingest";
    public const string PlainConsumer = "plain-consumer";
    public const int DefaultSeed = 20_250_601;

    private static readonly string[] AllWorkloads = [KafkaIngest, KafkaIngestTransform, KafkaIngestUnderQueries, RabbitMqIngest];

    // The baseline runs first; both read the same data.
    private static readonly string[] AllSystems = [PlainConsumer, Ingest];

    private static readonly TimeSpan RunTimeout = TimeSpan.FromMinutes(15);

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!TryTakeBrokers(args, out var kafka, out var rabbitMq, out var rest, out var error)
            || !BenchmarkArguments.TryParse(rest, DefaultSeed, AllSystems, AllWorkloads, out var options, out error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var workloads = AllWorkloads.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w)).ToList();
        var systems = AllSystems.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s)).ToList();
        if ((workloads.Contains(KafkaIngest) || workloads.Contains(KafkaIngestTransform) || workloads.Contains(KafkaIngestUnderQueries)) && kafka is null)
        {
            Console.Error.WriteLine($"{KafkaIngest} needs --kafka HOST:PORT (or leave it out with --workloads {RabbitMqIngest})");
            return 2;
        }

        Uri? rabbitUri = null;
        if (workloads.Contains(RabbitMqIngest) && (rabbitMq is null || !Uri.TryCreate(rabbitMq, UriKind.Absolute, out rabbitUri)))
        {
            Console.Error.WriteLine($"{RabbitMqIngest} needs --rabbitmq amqp://user:password@host:port/ (or leave it out with --workloads {KafkaIngest})");
            return 2;
        }

        return RunAsync(options, workloads, systems, kafka, rabbitUri).GetAwaiter().GetResult();
    }

    private static async Task<int> RunAsync(BenchmarkArguments options, List<string> workloads, List<string> systems, string? kafka, Uri? rabbitMq)
    {
        var sizes = options.Quick ? IngestionSizes.Quick : IngestionSizes.Full;
        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"sizes: {sizes.Name}, seed {options.Seed}: {sizes.KafkaDocuments:N0} documents in Kafka, {sizes.RabbitMqDocuments:N0} in RabbitMQ; default batching ({new Server.Batching.BatchingOptions().MaxMessages:N0} messages, {new Server.Batching.BatchingOptions().MaxDelay.TotalMilliseconds:N0} ms)"));
        Console.WriteLine();

        using var loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Warning));
        var total = Stopwatch.StartNew();
        var results = new List<IngestionResult>();
        if (workloads.Contains(KafkaIngest) || workloads.Contains(KafkaIngestTransform) || workloads.Contains(KafkaIngestUnderQueries))
        {
            await RunKafkaAsync(kafka!, sizes, options, workloads, systems, loggerFactory, results).ConfigureAwait(false);
        }

        if (workloads.Contains(RabbitMqIngest))
        {
            await RunRabbitMqAsync(rabbitMq!, sizes, options, systems, loggerFactory, results).ConfigureAwait(false);
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        IngestionReport.WriteTable(workloads, results);
        if (options.JsonPath is { } path)
        {
            IngestionReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Error is not null) ? 1 : 0;
    }

    private static async Task RunKafkaAsync(
        string bootstrapServers, IngestionSizes sizes, BenchmarkArguments options, List<string> workloads, List<string> systems, ILoggerFactory loggerFactory,
        List<IngestionResult> results)
    {
        var topic = $"bench-ingest-{Guid.NewGuid():N}";
        var transform = workloads.Contains(KafkaIngestTransform) && systems.Contains(Ingest);
        var underQueries = workloads.Contains(KafkaIngestUnderQueries) && systems.Contains(Ingest);
        List<string> plainSystems = workloads.Contains(KafkaIngest) ? systems : [];
        try
        {
            PreloadedData data;
            try
            {
                data = await KafkaPreload.RunAsync(bootstrapServers, topic, sizes.KafkaDocuments, options.Seed).ConfigureAwait(false);
            }
#pragma warning disable CA1031 // A failed pre-load fails this workload's cells; the other workload still runs.
            catch (Exception e)
#pragma warning restore CA1031
            {
                Console.WriteLine($"[kafka] pre-load into {topic} FAILED: {e.Message}");
                results.AddRange(systems.Select(s => new IngestionResult(KafkaIngest, s, null, e)));
                return;
            }

            PrintPreload("kafka", $"topic {topic}, {KafkaPreload.Partitions} partitions, idempotent producer, acks=all, {KafkaPreload.Compression}, key = document id", data);
            await WarmUpKafkaAsync(bootstrapServers, sizes.KafkaWarmUpDocuments, options, underQueries && !plainSystems.Contains(Ingest) ? [.. plainSystems, Ingest] : plainSystems, transform, loggerFactory).ConfigureAwait(false);
            foreach (var system in plainSystems)
            {
                var result = system == PlainConsumer
                    ? await MeasureAsync(KafkaIngest, system, () => Task.FromResult(KafkaPlainConsumer.Run(bootstrapServers, data, RunTimeout))).ConfigureAwait(false)
                    : await MeasureAsync(KafkaIngest, system, () => InDirectoryAsync(options, system, directory => SourceIngestRun.RunAsync(
                        directory, data, store => KafkaServiceSource.Create(bootstrapServers, topic, store, loggerFactory), RunTimeout))).ConfigureAwait(false);
                results.Add(result);
            }

            if (transform)
            {
                results.Add(await MeasureAsync(KafkaIngestTransform, Ingest, () => InDirectoryAsync(options, Ingest, directory => SourceIngestRun.RunAsync(
                    directory, data, store => KafkaServiceSource.Create(bootstrapServers, topic, store, loggerFactory, KafkaServiceSource.ReshapeScript), RunTimeout))).ConfigureAwait(false));
            }

            if (underQueries)
            {
                foreach (var (system, withQueries) in new[] { (IngestIdle, false), (Ingest, true) })
                {
                    QueryLoad? load = null;
                    results.Add(await MeasureAsync(KafkaIngestUnderQueries, system, () => InDirectoryAsync(options, system, directory => SourceIngestRun.RunAsync(
                        directory,
                        data,
                        store => KafkaServiceSource.Create(bootstrapServers, topic, store, loggerFactory, group: $"{KafkaIngestUnderQueries}-{system}"),
                        RunTimeout,
                        async store => load = await QueryLoad.StartAsync(store, directory, withQueries).ConfigureAwait(false)))).ConfigureAwait(false));
                    if (withQueries && load is not null)
                    {
                        Console.WriteLine($"[{system}] {KafkaIngestUnderQueries}: {load.Describe()}");
                    }
                }
            }

            if (plainSystems.Count > 0)
            {
                KafkaConsumerPerfTest.RunIfAvailable(bootstrapServers, data);
                await ReferenceStoreAsync(options, plainSystems, KafkaIngest, sizes.KafkaDocuments).ConfigureAwait(false);
            }
        }
        finally
        {
            await IgnoreFailureAsync($"deleting topic {topic}", () => KafkaPreload.DeleteTopicAsync(bootstrapServers, topic)).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Runs each system once over a small topic first, so the timed runs measure steady state,
    /// not the JIT: a quick run lasts seconds, and tiering up the consume and store paths took
    /// about a tenth of the samples in a profile of a cold one.
    /// </summary>
    private static async Task WarmUpKafkaAsync(
        string bootstrapServers, int warmUpDocuments, BenchmarkArguments options, List<string> systems, bool transform, ILoggerFactory loggerFactory)
    {
        var topic = $"bench-ingest-warmup-{Guid.NewGuid():N}";
        try
        {
            var data = await KafkaPreload.RunAsync(bootstrapServers, topic, warmUpDocuments, options.Seed + 1).ConfigureAwait(false);
            foreach (var system in systems)
            {
                Console.WriteLine($"[warm-up] {system} over {warmUpDocuments:N0} documents, not counted:");
                _ = system == PlainConsumer
                    ? await MeasureAsync(KafkaIngest, system, () => Task.FromResult(KafkaPlainConsumer.Run(bootstrapServers, data, RunTimeout))).ConfigureAwait(false)
                    : await MeasureAsync(KafkaIngest, system, () => InDirectoryAsync(options, system, directory => SourceIngestRun.RunAsync(
                        directory, data, store => KafkaServiceSource.Create(bootstrapServers, topic, store, loggerFactory), RunTimeout))).ConfigureAwait(false);
            }

            if (transform)
            {
                Console.WriteLine($"[warm-up] {Ingest} with the transform over {warmUpDocuments:N0} documents, not counted:");
                _ = await MeasureAsync(KafkaIngestTransform, Ingest, () => InDirectoryAsync(options, Ingest, directory => SourceIngestRun.RunAsync(
                    directory, data, store => KafkaServiceSource.Create(bootstrapServers, topic, store, loggerFactory, KafkaServiceSource.ReshapeScript), RunTimeout))).ConfigureAwait(false);
            }
        }
        finally
        {
            await IgnoreFailureAsync($"deleting topic {topic}", () => KafkaPreload.DeleteTopicAsync(bootstrapServers, topic)).ConfigureAwait(false);
        }
    }

    private static async Task RunRabbitMqAsync(
        Uri uri, IngestionSizes sizes, BenchmarkArguments options, List<string> systems, ILoggerFactory loggerFactory, List<IngestionResult> results)
    {
        // A queue is consumed destructively: each system gets its own queue with the same
        // documents, published (untimed) right before it runs.
        var prefetch = new RabbitMqSourceOptions().Prefetch;
        foreach (var system in systems)
        {
            var queue = $"bench-ingest-{system}-{Guid.NewGuid():N}";
            try
            {
                PreloadedData data;
                try
                {
                    data = await RabbitMqPreload.RunAsync(uri, queue, sizes.RabbitMqDocuments, options.Seed).ConfigureAwait(false);
                }
#pragma warning disable CA1031 // A failed pre-load fails this cell; the run goes on.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    Console.WriteLine($"[rabbitmq] pre-load into {queue} FAILED: {e.Message}");
                    results.Add(new IngestionResult(RabbitMqIngest, system, null, e));
                    continue;
                }

                PrintPreload("rabbitmq", $"durable queue {queue}, persistent messages, confirms in windows of {RabbitMqPreload.ConfirmWindow:N0}, message-id = document id, prefetch {prefetch:N0}", data);
                if (system == PlainConsumer)
                {
                    Console.WriteLine($"[rabbitmq] {RabbitMqPlainConsumer.Describe(prefetch)}");
                }

                var result = system == PlainConsumer
                    ? await MeasureAsync(RabbitMqIngest, system, () => RabbitMqPlainConsumer.RunAsync(uri, data, prefetch, RunTimeout)).ConfigureAwait(false)
                    : await MeasureAsync(RabbitMqIngest, system, () => InDirectoryAsync(options, system, directory => SourceIngestRun.RunAsync(
                        directory, data, store => RabbitMqServiceSource.Create(uri, queue, prefetch, store, loggerFactory), RunTimeout))).ConfigureAwait(false);
                results.Add(result);
                if (system == Ingest)
                {
                    await ReferenceStoreAsync(options, systems, RabbitMqIngest, sizes.RabbitMqDocuments).ConfigureAwait(false);
                }
            }
            finally
            {
                await IgnoreFailureAsync($"deleting queue {queue}", () => RabbitMqPreload.DeleteQueueAsync(uri, queue)).ConfigureAwait(false);
            }
        }
    }

    private static async Task<IngestionResult> MeasureAsync(string workload, string system, Func<Task<IngestionMeasurement>> run)
    {
        IngestionResult result;
        try
        {
            result = new IngestionResult(workload, system, await run().ConfigureAwait(false), null);
        }
#pragma warning disable CA1031 // One failing cell is reported and the run goes on with the next.
        catch (Exception e)
#pragma warning restore CA1031
        {
            result = new IngestionResult(workload, system, null, e);
        }

        Console.WriteLine(IngestionReport.Describe(result));
        return result;
    }

    private static async Task<IngestionMeasurement> InDirectoryAsync(BenchmarkArguments options, string system, Func<string, Task<IngestionMeasurement>> run)
    {
        var directory = Path.Combine(options.BaseDirectory, $"ingest-bench-ingestion-{system}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            return await run(directory).ConfigureAwait(false);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>With the ingest system, what the store alone does with the same documents, so the ratio can be read against it.</summary>
    private static Task ReferenceStoreAsync(BenchmarkArguments options, List<string> systems, string workload, int count) =>
        systems.Contains(Ingest)
            ? IgnoreFailureAsync(
                $"the store-only reference for {workload}",
                () => StoreCeiling.RunAsync(Path.Combine(options.BaseDirectory, $"ingest-bench-ingestion-store-{Guid.NewGuid():N}"), workload, count, options.Seed))
            : Task.CompletedTask;

    private static void PrintPreload(string broker, string description, PreloadedData data) =>
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"[{broker}] pre-loaded {data.Documents:N0} documents ({data.Bytes / (double)data.Documents:N0} bytes of JSON on average, {data.Bytes / 1e6:N1} MB) in {data.Elapsed.TotalSeconds:N1} s ({data.Documents / data.Elapsed.TotalSeconds:N0} docs/s): {description}"));

    private static async Task IgnoreFailureAsync(string what, Func<Task> action)
    {
        try
        {
            await action().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // Clean-up problems are reported, never fatal to the results.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"warning: {what} failed: {e.Message}");
        }
    }

    /// <summary>Takes <c>--kafka</c> and <c>--rabbitmq</c> out of the arguments; the rest are the common options.</summary>
    internal static bool TryTakeBrokers(string[] args, out string? kafka, out string? rabbitMq, out string[] rest, out string error)
    {
        kafka = null;
        rabbitMq = null;
        error = string.Empty;
        var remaining = new List<string>(args.Length);
        for (var i = 0; i < args.Length; i++)
        {
            if (args[i] is "--kafka" or "--rabbitmq")
            {
                if (i + 1 >= args.Length)
                {
                    error = $"{args[i]} needs a value";
                    rest = [];
                    return false;
                }

                if (args[i] == "--kafka")
                {
                    kafka = args[++i];
                }
                else
                {
                    rabbitMq = args[++i];
                }

                continue;
            }

            remaining.Add(args[i]);
        }

        rest = [.. remaining];
        return true;
    }
}
