using System.Globalization;
using Ingest.Documents;
using Ingest.Indexing.CrashWorker;
using Ingest.Indexing.Runtime;
using Microsoft.Extensions.Logging.Abstractions;

// Opens the document store in <root>/docs and the index set in <root>/indexes, puts the index definition the seed
// picks (CrashIndexes.For: a changed one starts a side-by-side rebuild), prints "open", then prints "etag N" after each
// batch the index commits, until killed. Every kill must leave the indexes consistent with some etag, resumable.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: Ingest.Indexing.CrashWorker <root> <seed>");
    return 2;
}

var root = args[0];
var seed = int.Parse(args[1], CultureInfo.InvariantCulture);
using var store = DocumentStore.Open(CrashIndexes.StoreDirectory(root));
var manager = await IndexSet.OpenAsync(store, CrashIndexes.IndexesDirectory(root), CrashIndexes.Options, NullLoggerFactory.Instance);
await manager.PutAsync(CrashIndexes.For(seed));
Console.Out.WriteLine("open");
Console.Out.Flush();
long last = -1;
while (true)
{
    var status = manager.GetStatus(CrashIndexes.Name)!;
    var etag = status.PendingLastIndexedEtag ?? status.LastIndexedEtag;
    if (etag != last)
    {
        Console.Out.WriteLine(FormattableString.Invariant($"etag {etag}"));
        Console.Out.Flush();
        last = etag;
    }

    // Waiting for the next commit of the current build; a rebuild's progress shows at the next status read.
    await manager.WaitForIndexedEtagAsync(CrashIndexes.Name, status.LastIndexedEtag + 1, TimeSpan.FromMilliseconds(50));
}
