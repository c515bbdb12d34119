using System.Globalization;
using Ingest.Documents;
using Ingest.Documents.CrashWorker;
using Ingest.Storage;

// Writes durable document batches from several concurrent writers (one per partition, so group
// commit merges them) into the directory given as the first argument, and prints "partition batch"
// once each batch's write has completed. Killing this process at any moment must leave every printed
// batch, and no half of any batch, in the store. See CrashBatches for what a batch holds.
// With "expire" as the third argument it runs ExpirationCrash instead.
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: Ingest.Documents.CrashWorker <directory> [seed] [expire]");
    return 2;
}

var seed = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : Environment.ProcessId;
var options = new DocumentStoreOptions
{
    // Compressed, with dictionaries trained (and their reference counts changed) often enough that kills land among them.
    Compression = true,
    DictionaryTrainingDocuments = 50,
    Storage = new StorageOptions
    {
        SyncMode = SyncMode.Durable,
        JournalFileSize = 256 * 1024,
        FlushThresholdPages = 64,
        FlushInterval = TimeSpan.FromMilliseconds(20),
    },
};

using var store = DocumentStore.Open(args[0], options);
if (args.Length > 2 && args[2] == "expire")
{
    await ExpirationCrash.RunAsync(store);
    return 0;
}

var output = new object();
var writers = Enumerable.Range(0, CrashBatches.Partitions).Select(p => Task.Run(async () =>
{
    var rnd = new Random(seed + p);
    var next = store.GetSourcePosition(CrashBatches.Source, p)?.Position.NextOffset ?? 0;
    var batch = new WriteBatch();
    while (true)
    {
        batch.Clear();
        var count = CrashBatches.DocumentCount(p, next);
        for (var j = 0; j < count; j++)
        {
            var pad = new string('x', rnd.Next(20) == 0 ? rnd.Next(9_000, 20_000) : rnd.Next(10, 500));
            batch.Put(CrashBatches.Id(p, next, j), CrashBatches.Collection, FormattableString.Invariant($"{{\"p\":{p},\"b\":{next},\"j\":{j},\"pad\":\"{pad}\"}}"));
        }

        if (next >= CrashBatches.DeleteLag)
        {
            batch.Delete(CrashBatches.Id(p, next - CrashBatches.DeleteLag, 0));
        }

        batch.SetSourcePosition(CrashBatches.Source, p, next + 1);
        await store.WriteAsync(batch);
        lock (output)
        {
            Console.Out.WriteLine(FormattableString.Invariant($"{p} {next}"));
            Console.Out.Flush();
        }

        next++;
    }
})).ToArray();

await Task.WhenAll(writers);
return 0;
