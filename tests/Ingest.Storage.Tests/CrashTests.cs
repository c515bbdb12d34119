using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using Xunit.Abstractions;

namespace Ingest.Storage.Tests;

/// <summary>Kills a child process running durable transactions with SIGKILL and checks what survives.</summary>
public sealed class CrashTests(ITestOutputHelper output)
{
    private const int Kills = 20;

    [Fact]
    public void Commit_survives_sigkill_and_no_transaction_is_half_applied() => TestSeed.Run(seed =>
    {
        var worker = CrashWorkerProcess.PathOf("Ingest.Storage.Tests", "Ingest.Storage.CrashWorker");
        using var dir = new TestDirectory();
        var rnd = new Random(seed);
        long reported = 0;
        for (var kill = 0; kill < Kills; kill++)
        {
            var lastLine = RunAndKill(worker, dir.Path, rnd.Next(), TimeSpan.FromMilliseconds(rnd.Next(50, 400)));
            reported = Math.Max(reported, lastLine);
            var present = Verify(dir.Path);
            output.WriteLine($"kill {kill}: last reported {lastLine}, last present {present}");
            Assert.True(present >= reported, $"transaction {reported} was reported committed, but the last present is {present}");
            reported = present;
        }

        Assert.True(reported >= Kills, $"only {reported} transactions committed across {Kills} runs");
    });

    /// <summary>Runs the worker until a random SIGKILL; returns the last transaction it reported committed.</summary>
    private static long RunAndKill(string worker, string directory, int seed, TimeSpan runFor)
    {
        long last = 0;
        CrashWorkerProcess.RunAndKill(worker, directory, seed, runFor, line =>
        {
            if (!long.TryParse(line, CultureInfo.InvariantCulture, out var tx))
            {
                return false;
            }

            Volatile.Write(ref last, tx);
            return true;
        });
        return Volatile.Read(ref last);
    }

    /// <summary>Checks every manifest against its items; returns the last transaction present.</summary>
    private static long Verify(string directory)
    {
        using var env = StorageEnvironment.Open(directory, TestDirectory.Options());
        using var read = env.BeginRead();
        var meta = read.OpenFixedSizeTree("meta");
        if (meta == null || !meta.TryGet(0, out var lastValue))
        {
            return 0;
        }

        var last = BinaryPrimitives.ReadInt64LittleEndian(lastValue);
        var data = read.OpenTree("data")!;
        var cursor = data.CreateCursor();
        var items = new Dictionary<long, int>();
        var manifests = new Dictionary<long, long>();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var key = Encoding.UTF8.GetString(cursor.Key);
            var tx = long.Parse(key.AsSpan(2, 8), CultureInfo.InvariantCulture);
            if (key[0] == 'm')
            {
                manifests[tx] = BinaryPrimitives.ReadInt64LittleEndian(cursor.Value);
            }
            else
            {
                items[tx] = items.GetValueOrDefault(tx) + 1;
            }
        }

        for (long tx = 1; tx <= last; tx++)
        {
            Assert.True(manifests.TryGetValue(tx, out var count), $"transaction {tx} (<= last {last}) has no manifest");
            var actual = items.GetValueOrDefault(tx);
            if (count == -1)
            {
                Assert.True(actual == 0, $"transaction {tx} was deleted but {actual} items remain");
            }
            else
            {
                Assert.True(actual == count, $"transaction {tx} has {actual} of {count} items");
            }
        }

        Assert.True(manifests.Keys.All(k => k <= last), "a manifest newer than the last transaction exists");
        Assert.True(items.Keys.All(k => k <= last), "items newer than the last transaction exist");
        return last;
    }
}
