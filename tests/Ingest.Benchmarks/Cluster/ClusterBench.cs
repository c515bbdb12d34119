using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Headers;
using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Cluster;

/// <summary>
/// The cluster benchmark's runs: one node in single mode, then three in cluster mode, each cell after an untimed
/// warm-up of the same work (the JIT settles on every node before anything is timed).
/// </summary>
internal sealed class ClusterBench(string kafka, string directory, ClusterSizes sizes, BenchmarkArguments options, TextWriter console)
{
    private const int ClusterNodes = 3;
    private const int Partitions = 3;
    private const string EtlTask = "failover";
    private static readonly TimeSpan CatchUpTimeout = TimeSpan.FromMinutes(10);
    private readonly string _run = Guid.NewGuid().ToString("N")[..10];
    private int _nextId;

    public async Task RunAsync(List<ClusterRow> rows, List<string> errors)
    {
        var ordersTopic = $"bench-orders-{_run}";
        var etlTopic = $"bench-etl-{_run}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka }).Build())
        {
            await admin.CreateTopicsAsync(
            [
                new TopicSpecification { Name = ordersTopic, NumPartitions = Partitions, ReplicationFactor = 1 },
                new TopicSpecification { Name = etlTopic, NumPartitions = 1, ReplicationFactor = 1 },
            ]).ConfigureAwait(false);
        }

        if (Runs(ClusterCommand.Single))
        {
            using var node = new BenchNode("single", Path.Combine(directory, "single"), SourceSettings(ordersTopic, "single"));
            await Cell(errors, "single node", async () =>
            {
                node.Start();
                if (Runs(ClusterCommand.HttpWrite))
                {
                    rows.Add((await HttpWritesAsync([node], ClusterCommand.Single, lag: null).ConfigureAwait(false)).Rate);
                }

                if (Runs(ClusterCommand.KafkaIngest))
                {
                    rows.Add(await KafkaIngestAsync([node], ClusterCommand.Single, ordersTopic).ConfigureAwait(false));
                }
            }).ConfigureAwait(false);
        }

        if (Runs(ClusterCommand.ClusterSystem))
        {
            var nodes = new List<BenchNode>();
            for (var i = 1; i <= ClusterNodes; i++)
            {
                var name = $"node-{i.ToString(CultureInfo.InvariantCulture)}";
                nodes.Add(new BenchNode(name, Path.Combine(directory, name), [.. SourceSettings(ordersTopic, name), .. ClusterSettings(name, etlTopic)]));
            }

            try
            {
                await Cell(errors, "cluster", async () =>
                {
                    foreach (var node in nodes)
                    {
                        node.Start();
                    }

                    if (Runs(ClusterCommand.HttpWrite) || Runs(ClusterCommand.ReplicationLag))
                    {
                        var (rate, lag) = await HttpWritesAsync(nodes, ClusterCommand.ClusterSystem, lag: []).ConfigureAwait(false);
                        rows.Add(rate);
                        rows.Add(lag!);
                    }

                    if (Runs(ClusterCommand.KafkaIngest))
                    {
                        rows.Add(await KafkaIngestAsync(nodes, ClusterCommand.ClusterSystem, ordersTopic).ConfigureAwait(false));
                    }

                    if (Runs(ClusterCommand.EtlFailover))
                    {
                        rows.Add(await new EtlFailoverRun(kafka, etlTopic, nodes, sizes.Failovers, console).RunAsync().ConfigureAwait(false));
                    }
                }).ConfigureAwait(false);
            }
            finally
            {
                foreach (var node in nodes)
                {
                    node.Dispose();
                }
            }
        }
    }

    private bool Runs(string name) =>
        (options.Workloads.Count == 0 || options.Workloads.Contains(name) || name is ClusterCommand.Single or ClusterCommand.ClusterSystem)
        && (options.Systems.Count == 0 || options.Systems.Contains(name) || name is not (ClusterCommand.Single or ClusterCommand.ClusterSystem));

    private async Task Cell(List<string> errors, string what, Func<Task> body)
    {
        try
        {
            await body().ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // One broken cell must not hide the others' figures; the exit code still says it failed.
            errors.Add($"{what}: {e.Message}");
            console.WriteLine($"{what} failed: {e}");
        }
    }

    private string[] SourceSettings(string topic, string node) =>
    [
        "--Ingest:Sources:Kafka:0:Name=orders",
        $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka}",
        $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
        $"--Ingest:Sources:Kafka:0:GroupId=bench-{_run}-{node}",
        "--Ingest:Sources:Kafka:0:Collection=Orders",
        "--Logging:LogLevel:Default=Warning",
        "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information",
    ];

    private string[] ClusterSettings(string node, string etlTopic) =>
    [
        $"--Ingest:Cluster:Node={node}",
        $"--Ingest:Cluster:BootstrapServers={kafka}",
        $"--Ingest:Cluster:Topic=bench-cluster-{_run}",
        $"--Ingest:Cluster:LeaseTopic=bench-leases-{_run}",
        // The failover run names the sending node through the CloudEvents source of each message.
        $"--Ingest:Etl:0:Name={EtlTask}",
        "--Ingest:Etl:0:Collections:0=Failover",
        $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka}",
        $"--Ingest:Etl:0:Kafka:Topic={etlTopic}",
        $"--Ingest:Etl:0:Source=/ingest/{node}",
    ];

    /// <summary>PUTs spread over the nodes by concurrent clients; in cluster mode every tenth write is also read on the two other nodes with <c>?after=</c>, timing how far they trail.</summary>
    private async Task<(ClusterRow Rate, ClusterRow? Lag)> HttpWritesAsync(IReadOnlyList<BenchNode> nodes, string system, List<double>? lag)
    {
        await WarmUpAsync(nodes, () => WriteAsync(nodes, sizes.HttpWarmup, null)).ConfigureAwait(false);
        var cpuBefore = TotalCpu(nodes);
        var clock = Stopwatch.StartNew();
        await WriteAsync(nodes, sizes.HttpWrites, lag).ConfigureAwait(false);
        var elapsed = clock.Elapsed;
        var cpu = TotalCpu(nodes) - cpuBefore;
        var rate = new ClusterRow(
            ClusterCommand.HttpWrite, system, sizes.HttpWrites / elapsed.TotalSeconds, null, null, CpuPerDocPerNode(cpu, sizes.HttpWrites, nodes.Count),
            string.Create(CultureInfo.InvariantCulture, $"{sizes.HttpWrites} PUTs, {sizes.HttpConcurrency} clients over {nodes.Count} node(s)"));
        console.WriteLine($"{rate.Workload} {system}: {rate.OpsPerSec:N0}/s");
        if (lag is null)
        {
            return (rate, null);
        }

        lag.Sort();
        var lagRow = new ClusterRow(
            ClusterCommand.ReplicationLag, system, null, Percentile(lag, 0.5), Percentile(lag, 0.99), null,
            string.Create(CultureInfo.InvariantCulture, $"{lag.Count} sampled writes: from the receiving node's answer until both other nodes applied it, under the {ClusterCommand.HttpWrite} load"));
        console.WriteLine($"{lagRow.Workload}: p50 {lagRow.P50Ms:N1} ms, p99 {lagRow.P99Ms:N1} ms");
        return (rate, lagRow);
    }

    private async Task WriteAsync(IReadOnlyList<BenchNode> nodes, int count, List<double>? lag)
    {
        var first = Interlocked.Add(ref _nextId, count) - count;
        var next = -1;
        var workers = new Task[sizes.HttpConcurrency];
        for (var w = 0; w < workers.Length; w++)
        {
            workers[w] = Task.Run(async () =>
            {
                int i;
                while ((i = Interlocked.Increment(ref next)) < count)
                {
                    var seq = first + i;
                    var node = nodes[seq % nodes.Count];
                    var id = $"notes/{seq.ToString(CultureInfo.InvariantCulture)}";
                    using var content = new StringContent(
                        string.Create(CultureInfo.InvariantCulture, $$"""{"seq":{{seq}},"customer":"customers/{{seq % 977}}","total":{{seq % 500}}.25,"status":"new"}"""),
                        Encoding.UTF8, new MediaTypeHeaderValue("application/json"));
                    using var response = await node.Client.PutAsync(new Uri($"docs/{id}?collection=Notes", UriKind.Relative), content).ConfigureAwait(false);
                    if (!response.IsSuccessStatusCode)
                    {
                        throw new InvalidOperationException($"PUT {id} on {node.Name}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync().ConfigureAwait(false)}");
                    }

                    if (lag is not null && seq % 10 == 0)
                    {
                        var position = response.Headers.TryGetValues("X-Ingest-Position", out var values) ? values.First() : throw new InvalidOperationException("a cluster write answered without X-Ingest-Position");
                        var clock = Stopwatch.StartNew();
                        var reads = new List<Task>();
                        foreach (var other in nodes)
                        {
                            if (other != node)
                            {
                                reads.Add(ReadAfterAsync(other, id, position));
                            }
                        }

                        await Task.WhenAll(reads).ConfigureAwait(false);
                        lock (lag)
                        {
                            lag.Add(clock.Elapsed.TotalMilliseconds);
                        }
                    }
                }
            });
        }

        await Task.WhenAll(workers).ConfigureAwait(false);
    }

    private static async Task ReadAfterAsync(BenchNode node, string id, string position)
    {
        using var response = await node.Client.GetAsync(new Uri($"docs/{id}?after={Uri.EscapeDataString(position)}", UriKind.Relative)).ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            throw new InvalidOperationException($"GET {id}?after={position} on {node.Name}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync().ConfigureAwait(false)}");
        }
    }

    /// <summary>Messages produced to the source topic as fast as the producer goes; timed until every node stored them all.</summary>
    private async Task<ClusterRow> KafkaIngestAsync(IReadOnlyList<BenchNode> nodes, string system, string topic)
    {
        await WarmUpAsync(nodes, () => ProduceAndWaitAsync(nodes, topic, sizes.KafkaWarmup)).ConfigureAwait(false);
        var cpuBefore = TotalCpu(nodes);
        var (elapsed, perNode) = await ProduceAndWaitAsync(nodes, topic, sizes.KafkaMessages).ConfigureAwait(false);
        var cpu = TotalCpu(nodes) - cpuBefore;
        var row = new ClusterRow(
            ClusterCommand.KafkaIngest, system, sizes.KafkaMessages / elapsed.TotalSeconds, null, null, CpuPerDocPerNode(cpu, sizes.KafkaMessages, nodes.Count),
            $"{sizes.KafkaMessages} messages until the last node had them all; per node {string.Join(", ", perNode.Select(p => $"{p.Node} {p.Seconds:N1} s"))}");
        console.WriteLine($"{row.Workload} {system}: {row.OpsPerSec:N0}/s ({row.Note})");
        return row;
    }

    private async Task<(TimeSpan Elapsed, List<(string Node, double Seconds)> PerNode)> ProduceAndWaitAsync(IReadOnlyList<BenchNode> nodes, string topic, int count)
    {
        var targets = new long[nodes.Count];
        for (var n = 0; n < nodes.Count; n++)
        {
            targets[n] = await nodes[n].DocumentCountAsync().ConfigureAwait(false) + count;
        }

        var first = Interlocked.Add(ref _nextId, count) - count;
        var clock = Stopwatch.StartNew();
        var producing = Task.Run(() =>
        {
            var config = new ProducerConfig { BootstrapServers = kafka, EnableIdempotence = true, Acks = Acks.All, LingerMs = 5, BatchSize = 1_000_000 };
            using var producer = new ProducerBuilder<string, byte[]>(config).Build();
            for (var i = 0; i < count; i++)
            {
                var seq = first + i;
                var body = Encoding.UTF8.GetBytes(string.Create(
                    CultureInfo.InvariantCulture, $$"""{"seq":{{seq}},"customer":"customers/{{seq % 977}}","total":{{seq % 500}}.25,"status":"shipped","lines":[{"sku":"p-{{seq % 100}}","qty":2}]}"""));
                while (true)
                {
                    try
                    {
                        producer.Produce(topic, new Message<string, byte[]> { Key = $"orders/{seq.ToString(CultureInfo.InvariantCulture)}", Value = body });
                        break;
                    }
                    catch (ProduceException<string, byte[]> e) when (e.Error.Code == ErrorCode.Local_QueueFull)
                    {
                        producer.Poll(TimeSpan.FromMilliseconds(10));
                    }
                }
            }

            producer.Flush(TimeSpan.FromMinutes(2));
        });

        var done = new (string Node, double Seconds)[nodes.Count];
        var remaining = nodes.Count;
        var deadline = DateTime.UtcNow + CatchUpTimeout;
        while (remaining > 0)
        {
            for (var n = 0; n < nodes.Count; n++)
            {
                if (done[n].Node is null && await nodes[n].DocumentCountAsync().ConfigureAwait(false) >= targets[n])
                {
                    done[n] = (nodes[n].Name, clock.Elapsed.TotalSeconds);
                    remaining--;
                }
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"the nodes did not store {count} messages within {CatchUpTimeout}");
            }

            await Task.Delay(50).ConfigureAwait(false);
        }

        await producing.ConfigureAwait(false);
        var last = 0.0;
        foreach (var (_, seconds) in done)
        {
            last = Math.Max(last, seconds);
        }

        return (TimeSpan.FromSeconds(last), [.. done]);
    }

    /// <summary>Untimed rounds of the cell's own work until the JIT has settled on every node (<see cref="JitWarmup"/>).</summary>
    private async Task WarmUpAsync(IReadOnlyList<BenchNode> nodes, Func<Task> round)
    {
        var warm = await JitWarmup.RunAsync(
            () =>
            {
                var jit = TimeSpan.Zero;
                foreach (var node in nodes)
                {
                    jit += node.JitCpu();
                }

                return jit;
            },
            round).ConfigureAwait(false);
        console.WriteLine($"  {warm.Describe()}");
    }

    private static TimeSpan TotalCpu(IReadOnlyList<BenchNode> nodes)
    {
        var total = TimeSpan.Zero;
        foreach (var node in nodes)
        {
            total += node.Cpu();
        }

        return total;
    }

    private static double CpuPerDocPerNode(TimeSpan cpu, int documents, int nodes) => cpu.TotalMicroseconds / documents / nodes;

    internal static double Percentile(List<double> sorted, double p) =>
        sorted.Count == 0 ? double.NaN : sorted[Math.Min(sorted.Count - 1, (int)Math.Ceiling(p * sorted.Count) - 1)];
}
