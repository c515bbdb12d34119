using Ingest.Benchmarks.Micro;
using Ingest.Benchmarks.Storage;

// End-to-end benchmarks print a table and can write JSON; micro benchmarks go through BenchmarkDotNet.
// `documents` and `ingest` join `storage` as their engines land.
return args switch
{
    ["storage", .. var rest] => StorageCommand.Run(rest),
    ["documents", .. var rest] => Ingest.Benchmarks.Documents.DocumentsCommand.Run(rest),
    ["micro", .. var rest] => MicroCommand.Run(rest),
    _ => PrintUsage(),
};

static int PrintUsage()
{
    Console.Error.WriteLine("usage: Ingest.Benchmarks <command>");
    Console.Error.WriteLine($"  {StorageCommand.Usage}");
    Console.Error.WriteLine("      Ingest, LMDB, SQLite and the raw disk on the storage workloads of issue 3.");
    Console.Error.WriteLine($"  {MicroCommand.Usage}");
    Console.Error.WriteLine("      BenchmarkDotNet micro benchmarks of this assembly, e.g. micro --filter '*Lmdb*'.");
    return 2;
}
