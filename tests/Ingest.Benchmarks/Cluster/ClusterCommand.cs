using System.Diagnostics;
using System.Globalization;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Cluster;

/// <summary>
/// <c>cluster --kafka HOST:PORT [--quick] [--json PATH] [--dir DIR] [--workloads a,b] [--seed N]</c>: three server
/// processes in cluster mode on this machine against one node in single mode, in the same run: HTTP write and Kafka
/// ingestion throughput, replication lag between the first and the last node, and ETL failover time.
/// </summary>
internal static class ClusterCommand
{
    public const string Usage =
        "cluster --kafka HOST:PORT [--quick] [--json PATH] [--dir DIR] [--systems single,cluster] [--workloads http-write,kafka-ingest,replication-lag,etl-failover] [--seed N]";

    public const string HttpWrite = "http-write";
    public const string KafkaIngest = "kafka-ingest";
    public const string ReplicationLag = "replication-lag";
    public const string EtlFailover = "etl-failover";
    public const string Single = "single";
    public const string ClusterSystem = "cluster";

    public static int Run(string[] args)
    {
        string? kafka = null;
        var rest = new List<string>();
        for (var i = 0; i < args.Length; i++)
        {
            if (args[i] == "--kafka" && i + 1 < args.Length)
            {
                kafka = args[++i];
            }
            else
            {
                rest.Add(args[i]);
            }
        }

        if (!BenchmarkArguments.TryParse([.. rest], 20_261_127, [Single, ClusterSystem], [HttpWrite, KafkaIngest, ReplicationLag, EtlFailover], out var options, out var error)
            || kafka is null)
        {
            Console.Error.WriteLine(kafka is null ? "cluster needs --kafka HOST:PORT (the broker the nodes and the cluster topic use)" : error);
            Console.Error.WriteLine($"usage: {Usage}");
            return 2;
        }

        var directory = Path.Combine(options.BaseDirectory, $"ingest-cluster-bench-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        MachineInfo.Describe(directory).Print(Console.Out);
        var sizes = ClusterSizes.For(options.Quick);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"sizes: {(options.Quick ? "quick" : "full")} ({sizes}), seed {options.Seed}"));
        Console.WriteLine();
        var total = Stopwatch.StartNew();
        var rows = new List<ClusterRow>();
        var errors = new List<string>();
        try
        {
            var bench = new ClusterBench(kafka, directory, sizes, options, Console.Out);
            bench.RunAsync(rows, errors).GetAwaiter().GetResult();
        }
        finally
        {
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (IOException)
            {
            }
        }

        Console.WriteLine($"ran in {total.Elapsed.TotalSeconds:N1} s");
        Console.WriteLine($"load after the run: {MachineInfo.Describe(options.BaseDirectory).LoadAverage}");
        Console.WriteLine();
        ClusterReport.WriteTable(rows, errors, Console.Out);
        if (options.JsonPath is { } path)
        {
            BenchmarkJsonFile.Write(path, rows.Select(ClusterReport.Record));
            Console.WriteLine($"wrote {path}");
        }

        return errors.Count > 0 ? 1 : 0;
    }
}
