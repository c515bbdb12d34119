using Ingest.Benchmarks.Budgets;
using Ingest.Benchmarks.Cluster;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Etl;
using Ingest.Benchmarks.Indexing;
using Ingest.Benchmarks.Lifecycle;
using Ingest.Benchmarks.Ingestion;
using Ingest.Benchmarks.Micro;
using Ingest.Benchmarks.Queries;
using Ingest.Benchmarks.Storage;

// End-to-end benchmarks print a table and can write JSON; micro benchmarks go through BenchmarkDotNet.
return args switch
{
    ["storage", .. var rest] => StorageCommand.Run(rest),
    ["documents", .. var rest] => DocumentsCommand.Run(rest),
    ["ingest", .. var rest] => IngestionCommand.Run(rest),
    ["indexing", .. var rest] => IndexingCommand.Run(rest),
    ["etl", .. var rest] => EtlCommand.Run(rest),
    ["queries", .. var rest] => QueriesCommand.Run(rest),
    ["lifecycle", .. var rest] => LifecycleCommand.Run(rest),
    ["cluster", .. var rest] => ClusterCommand.Run(rest),
    ["micro", .. var rest] => MicroCommand.Run(rest),
    ["budgets", .. var rest] => BudgetsCommand.Run(rest),
    _ => PrintUsage(),
};

static int PrintUsage()
{
    Console.Error.WriteLine("usage: Ingest.Benchmarks <command>");
    Console.Error.WriteLine($"  {StorageCommand.Usage}");
    Console.Error.WriteLine("      Ingest, LMDB, SQLite and the raw disk on the storage engine's workloads.");
    Console.Error.WriteLine($"  {DocumentsCommand.Usage}");
    Console.Error.WriteLine("      The document store and SQLite on the same generated orders.");
    Console.Error.WriteLine($"  {IngestionCommand.Usage}");
    Console.Error.WriteLine("      The service's Kafka and RabbitMQ sources against plain consumers of the same pre-loaded messages.");
    Console.Error.WriteLine($"  {IndexingCommand.Usage}");
    Console.Error.WriteLine("      Indexing the generated orders (build, capped and unbounded rebuilds, churn) beside Lucene.NET and SQLite.");
    Console.Error.WriteLine($"  {EtlCommand.Usage}");
    Console.Error.WriteLine("      Stored orders sent by an ETL task to Kafka and RabbitMQ, with and without a transform, beside plain producers.");
    Console.Error.WriteLine($"  {QueriesCommand.Usage}");
    Console.Error.WriteLine("      One query per shape over the generated orders, side by side with SQLite and Lucene.NET, at 1 and 2 threads.");
    Console.Error.WriteLine($"  {LifecycleCommand.Usage}");
    Console.Error.WriteLine("      Compression, expiration and disk footprint beside uncompressed storage, SQLite and one-by-one deletes.");
    Console.Error.WriteLine($"  {ClusterCommand.Usage}");
    Console.Error.WriteLine("      Three nodes in cluster mode against one in single mode: HTTP writes, Kafka ingestion, replication lag, ETL failover.");
    Console.Error.WriteLine($"  {MicroCommand.Usage}");
    Console.Error.WriteLine("      BenchmarkDotNet micro benchmarks of this assembly, e.g. micro --filter '*Lmdb*'.");
    Console.Error.WriteLine($"  {BudgetsCommand.Usage}");
    Console.Error.WriteLine("      Bytes allocated per operation on the hot paths; with --check, fails when one is over its checked-in budget.");
    return 2;
}
