using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using Ingest.Storage;

// Runs durable transactions in the directory given as the first argument and prints the number
// of each one to stdout once Commit has returned. Transaction t writes a manifest "m/t" holding
// its item count and the items "d/t/j"; it also deletes the items of transaction t - 50 and marks
// that manifest deleted (count -1), so freed pages get reused. Killing this process at any point
// must leave every printed transaction intact and no transaction half applied.
// With a third argument "compact" it compacts the store in the directory again and again instead (printing
// "compacted" after each), for the compaction crash test: a kill at any point must leave the store as it was.
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: Ingest.Storage.CrashWorker <directory> [seed] [compact]");
    return 2;
}

if (args.Length > 2 && args[2] == "compact")
{
    Console.Out.WriteLine("ready");
    Console.Out.Flush();
    while (true)
    {
        StorageEnvironment.Compact(args[0], new StorageOptions { JournalFileSize = 256 * 1024, InitialJournalFileSize = 64 * 1024 });
        Console.Out.WriteLine("compacted");
        Console.Out.Flush();
    }
}

var seed = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : Environment.ProcessId;
var rnd = new Random(seed);
var options = new StorageOptions
{
    SyncMode = SyncMode.Durable,
    JournalFileSize = 256 * 1024,
    InitialJournalFileSize = 64 * 1024, // files of 64, 128 and 256 KiB: recovery reads across sizes
    FlushThresholdPages = 64,
    FlushInterval = TimeSpan.FromMilliseconds(20),
};

using var env = StorageEnvironment.Open(args[0], options);
long next;
using (var read = env.BeginRead())
{
    var meta = read.OpenFixedSizeTree("meta");
    next = meta != null && meta.TryGet(0, out var last) ? BinaryPrimitives.ReadInt64LittleEndian(last) + 1 : 1;
}

Span<byte> eight = stackalloc byte[8];
while (true)
{
    using (var tx = env.BeginWrite())
    {
        var data = tx.CreateTree("data");
        var count = rnd.Next(1, 30);
        for (var j = 0; j < count; j++)
        {
            var value = new byte[rnd.Next(10) == 0 ? rnd.Next(9_000, 30_000) : rnd.Next(10, 300)];
            rnd.NextBytes(value);
            data.Put(Key($"d/{next:D8}/{j:D3}"), value);
        }

        BinaryPrimitives.WriteInt64LittleEndian(eight, count);
        data.Put(Key($"m/{next:D8}"), eight);

        var old = next - 50;
        if (old > 0 && data.TryGet(Key($"m/{old:D8}"), out var oldManifest))
        {
            var oldCount = BinaryPrimitives.ReadInt64LittleEndian(oldManifest);
            for (var j = 0; j < oldCount; j++)
            {
                data.Delete(Key($"d/{old:D8}/{j:D3}"));
            }

            BinaryPrimitives.WriteInt64LittleEndian(eight, -1);
            data.Put(Key($"m/{old:D8}"), eight);
        }

        BinaryPrimitives.WriteInt64LittleEndian(eight, next);
        tx.CreateFixedSizeTree("meta", 8).Put(0, eight);
        tx.Commit();
    }

    Console.Out.WriteLine(next.ToString(CultureInfo.InvariantCulture));
    Console.Out.Flush();
    next++;
}

static byte[] Key(string s) => Encoding.UTF8.GetBytes(s);
