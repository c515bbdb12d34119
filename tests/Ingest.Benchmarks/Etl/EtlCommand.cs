using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Ingestion;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Etl;

/// <summary>
/// <c>etl --kafka HOST:PORT --rabbitmq URI [--quick] [--json PATH] [--dir DIR] [--systems a,b] [--workloads a,b] [--seed N]</c>:
/// stored orders sent by the server's ETL task loop, with and without a simple transform, beside a
/// plain producer of the same documents with the same delivery guarantees.
/// </summary>
internal static class EtlCommand
{
    public const string Usage =
        "etl --kafka HOST:PORT --rabbitmq URI [--quick] [--json PATH] [--dir DIR] [--systems ingest,plain-producer] [--workloads etl-kafka,etl-kafka-transform,etl-rabbitmq,etl-rabbitmq-transform] [--seed N]";

    public const string EtlKafka = "etl-kafka";
    public const string EtlKafkaTransform = "etl-kafka-transform";
    public const string EtlRabbitMq = "etl-rabbitmq";
    public const string EtlRabbitMqTransform = "etl-rabbitmq-transform";
    public const string Ingest = "ingest";
    public const string PlainProducer = "plain-producer";
    public const int DefaultSeed = 20_250_401; // the documents benchmark's: the same orders

    private const string TransformSuffix = "-transform";
    private static readonly string[] AllWorkloads = [EtlKafka, EtlKafkaTransform, EtlRabbitMq, EtlRabbitMqTransform];

    // The baseline runs first.
    private static readonly string[] AllSystems = [PlainProducer, Ingest];

    /// <summary>The workload a <c>-transform</c> workload is the transformed form of; itself otherwise.</summary>
    public static string BaseOf(string workload) => workload.EndsWith(TransformSuffix, StringComparison.Ordinal) ? workload[..^TransformSuffix.Length] : workload;

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!IngestionCommand.TryTakeBrokers(args, out var kafka, out var rabbitMq, out var rest, out var error)
            || !BenchmarkArguments.TryParse(rest, DefaultSeed, AllSystems, AllWorkloads, out var options, out error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var workloads = AllWorkloads.Where(w => options.Workloads.Count == 0 || options.Workloads.Contains(w)).ToList();
        var systems = AllSystems.Where(s => options.Systems.Count == 0 || options.Systems.Contains(s)).ToList();
        if (workloads.Any(w => BaseOf(w) == EtlKafka) && kafka is null)
        {
            Console.Error.WriteLine($"{EtlKafka} needs --kafka HOST:PORT (or leave it out with --workloads {EtlRabbitMq},{EtlRabbitMqTransform})");
            return 2;
        }

        Uri? rabbitUri = null;
        if (workloads.Any(w => BaseOf(w) == EtlRabbitMq) && (rabbitMq is null || !Uri.TryCreate(rabbitMq, UriKind.Absolute, out rabbitUri)))
        {
            Console.Error.WriteLine($"{EtlRabbitMq} needs --rabbitmq amqp://user:password@host:port/ (or leave it out with --workloads {EtlKafka},{EtlKafkaTransform})");
            return 2;
        }

        return RunAsync(options, workloads, systems, kafka, rabbitUri).GetAwaiter().GetResult();
    }

    private static async Task<int> RunAsync(BenchmarkArguments options, List<string> workloads, List<string> systems, string? kafka, Uri? rabbitMq)
    {
        var sizes = options.Quick ? EtlSizes.Quick : EtlSizes.Full;
        Directory.CreateDirectory(options.BaseDirectory);
        MachineInfo.Describe(options.BaseDirectory).Print(Console.Out);
        var generation = Stopwatch.StartNew();
        var data = OrderDataset.Generate(Math.Max(sizes.KafkaDocuments, sizes.RabbitMqDocuments), 0, options.Seed);
        Console.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"sizes: {sizes.Name}, seed {options.Seed}: {sizes.KafkaDocuments:N0} stored orders to Kafka, {sizes.RabbitMqDocuments:N0} to RabbitMQ, {data.TotalBytes / (double)data.Count:N0} bytes of JSON on average; generated in {generation.Elapsed.TotalSeconds:N1} s"));
        Console.WriteLine($"transform: {EtlIngestRun.TransformScript}");
        Console.WriteLine();

        var total = Stopwatch.StartNew();
        var results = new List<EtlResult>();
        if (kafka is not null)
        {
            await RunBrokerAsync(EtlKafka, label => EtlTargets.CreateKafkaAsync(kafka, label), sizes.KafkaDocuments, sizes.KafkaWarmUpDocuments, data, options, workloads, systems, results)
                .ConfigureAwait(false);
        }

        if (rabbitMq is not null)
        {
            await RunBrokerAsync(EtlRabbitMq, label => EtlTargets.CreateRabbitMqAsync(rabbitMq, label), sizes.RabbitMqDocuments, sizes.RabbitMqWarmUpDocuments, data, options, workloads, systems, results)
                .ConfigureAwait(false);
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine();
        EtlReport.WriteTable(workloads, results);
        if (options.JsonPath is { } path)
        {
            EtlReport.WriteJson(path, results);
            Console.WriteLine($"wrote {path}");
        }

        return results.Any(r => r.Error is not null) ? 1 : 0;
    }

    /// <summary>One broker's two workloads: an untimed warm-up of every cell over a small store, then the timed cells, each into a fresh target.</summary>
    private static async Task RunBrokerAsync(
        string workload, Func<string, Task<EtlTarget>> createTarget, int count, int warmUp, OrderDataset data, BenchmarkArguments options,
        List<string> workloads, List<string> systems, List<EtlResult> results)
    {
        var transformed = workload + TransformSuffix;
        var cells = new List<(string Workload, string System)>();
        if (systems.Contains(PlainProducer) && (workloads.Contains(workload) || workloads.Contains(transformed)))
        {
            cells.Add((workload, PlainProducer));
        }

        foreach (var selected in new[] { workload, transformed }.Where(workloads.Contains))
        {
            if (systems.Contains(Ingest))
            {
                cells.Add((selected, Ingest));
            }
        }

        if (cells.Count == 0)
        {
            return;
        }

        var directory = Path.Combine(options.BaseDirectory, $"ingest-bench-etl-{workload}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            Console.WriteLine($"[warm-up] every {workload} cell over {warmUp:N0} documents, not counted:");
            await RunCellsAsync(cells, Path.Combine(directory, "warm-up"), createTarget, data, warmUp, results: null).ConfigureAwait(false);
            await RunCellsAsync(cells, Path.Combine(directory, "measured"), createTarget, data, count, results).ConfigureAwait(false);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Kafka's own producer on the same machine, printed beside the plain .NET producer with the ratio of the two.</summary>
    private static async Task<IEnumerable<EtlResult>> RunKafkaReferenceAsync(
        string workload, EtlMeasurement plain, Func<string, Task<EtlTarget>> createTarget, int count, int recordSize)
    {
        var target = await createTarget("perf-test").ConfigureAwait(false);
        try
        {
            if (KafkaProducerPerfTest.RunIfAvailable(target, count, recordSize) is not { } reference)
            {
                return [];
            }

            var result = new EtlResult(workload, KafkaProducerPerfTest.System, reference, null);
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{EtlReport.Describe(result)} ({recordSize:N0}-byte records, acks=all, idempotent; {PlainProducer}/{KafkaProducerPerfTest.System} = {plain.MessagesPerSecond / reference.MessagesPerSecond:0.00}x)"));
            return [result];
        }
        finally
        {
            await EtlTargets.DeleteAsync(target).ConfigureAwait(false);
        }
    }

    private static async Task RunCellsAsync(
        List<(string Workload, string System)> cells, string directory, Func<string, Task<EtlTarget>> createTarget, OrderDataset data, int count,
        List<EtlResult>? results)
    {
        var bytes = data.Bodies.Take(count).Sum(static b => (long)b.Length);
        Ingest.Documents.DocumentStore? store = null;
        try
        {
            if (cells.Any(static c => c.System == Ingest))
            {
                var loading = Stopwatch.StartNew();
                store = EtlIngestRun.LoadStore(directory, data, count);
                if (results is not null)
                {
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[ingest] stored {count:N0} orders ({bytes / 1e6:N1} MB) in {loading.Elapsed.TotalSeconds:N1} s (not timed)"));
                }
            }

            foreach (var (workload, system) in cells)
            {
                EtlResult result;
                EtlTarget? target = null;
                try
                {
                    target = await createTarget(system).ConfigureAwait(false);
                    var cpuBefore = Environment.CpuUsage.TotalTime;
                    var measurement = system == PlainProducer
                        ? target.Kafka is not null ? KafkaPlainProducer.Run(target, data, count) : await RabbitMqPlainPublisher.RunAsync(target, data, count).ConfigureAwait(false)
                        : await EtlIngestRun.RunAsync(store!, directory, target, workload != BaseOf(workload), bytes).ConfigureAwait(false);
                    measurement = measurement with { Cpu = Environment.CpuUsage.TotalTime - cpuBefore };
                    result = new EtlResult(workload, system, measurement, null);
                }
#pragma warning disable CA1031 // One failing cell is reported and the run goes on with the next.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    result = new EtlResult(workload, system, null, e);
                }
                finally
                {
                    if (target is not null)
                    {
                        await EtlTargets.DeleteAsync(target).ConfigureAwait(false);
                    }
                }

                Console.WriteLine(EtlReport.Describe(result));
                results?.Add(result);
                if (results is not null && system == PlainProducer && result.Measurement is { } plain && BaseOf(workload) == EtlKafka)
                {
                    results.AddRange(await RunKafkaReferenceAsync(workload, plain, createTarget, count, (int)Math.Round(bytes / (double)count)).ConfigureAwait(false));
                }
            }
        }
        finally
        {
            store?.Dispose();
        }
    }
}
