using System.Globalization;
using System.Text.Json;
using Ingest.Documents.CrashWorker;
using Ingest.Storage;
using Xunit.Abstractions;

namespace Ingest.Documents.Tests;

/// <summary>Kills a child process writing document batches with SIGKILL and checks what survives.</summary>
public sealed class CrashTests(ITestOutputHelper output)
{
    private const int Kills = 20;

    [Fact]
    public void Batches_survive_sigkill_whole_with_their_source_positions_or_not_at_all() => TestSeed.Run(seed =>
    {
        var worker = CrashWorkerProcess.PathOf("Ingest.Documents.Tests", "Ingest.Documents.CrashWorker");
        using var dir = new TestDirectory();
        var rnd = new Random(seed);
        var reported = new long[CrashBatches.Partitions];
        Array.Fill(reported, -1);
        for (var kill = 0; kill < Kills; kill++)
        {
            var lastReported = RunAndKill(worker, dir.Path, rnd.Next(), TimeSpan.FromMilliseconds(rnd.Next(50, 400)));
            var positions = Verify(dir.Path);
            output.WriteLine($"kill {kill}: reported [{string.Join(", ", lastReported)}], stored next offsets [{string.Join(", ", positions)}]");
            for (var p = 0; p < CrashBatches.Partitions; p++)
            {
                reported[p] = Math.Max(reported[p], lastReported[p]);
                Assert.True(positions[p] > reported[p], $"partition {p}: batch {reported[p]} was reported durable, but the stored next offset is {positions[p]}");
                reported[p] = positions[p] - 1;
            }
        }

        Assert.True(reported.Sum() >= Kills, $"only [{string.Join(", ", reported)}] batches committed across {Kills} runs");
    });

    /// <summary>Runs the worker until a random SIGKILL; returns the last batch it reported durable, per partition.</summary>
    private static long[] RunAndKill(string worker, string directory, int seed, TimeSpan runFor)
    {
        var last = new long[CrashBatches.Partitions];
        Array.Fill(last, -1);
        CrashWorkerProcess.RunAndKill(worker, directory, seed, runFor, line =>
        {
            var parts = line.Split(' ');
            if (parts.Length != 2 || !int.TryParse(parts[0], CultureInfo.InvariantCulture, out var p) || !long.TryParse(parts[1], CultureInfo.InvariantCulture, out var b))
            {
                return false;
            }

            lock (last)
            {
                last[p] = Math.Max(last[p], b);
            }

            return true;
        });
        lock (last)
        {
            return (long[])last.Clone();
        }
    }

    /// <summary>Checks every partition's batches against its stored position; returns the positions.</summary>
    private static long[] Verify(string directory)
    {
        using var store = DocumentStore.Open(directory, TestDirectory.Options(SyncMode.NoSyncUnsafe));
        using var reader = store.BeginRead();
        var positions = new long[CrashBatches.Partitions];
        for (var p = 0; p < CrashBatches.Partitions; p++)
        {
            positions[p] = reader.GetSourcePosition(CrashBatches.Source, p)?.Position.NextOffset ?? 0;
        }

        // Every live document and tombstone, by partition and batch.
        var live = new Dictionary<(int P, long B), HashSet<int>>();
        var tombstones = new Dictionary<(int P, long B), int>();
        long previousEtag = 0;
        long liveCount = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            Assert.True(change.Etag > previousEtag, "etags must increase along the changes feed");
            previousEtag = change.Etag;
            var parts = change.Id.Split('/');
            var key = (int.Parse(parts[0].AsSpan(1), CultureInfo.InvariantCulture), long.Parse(parts[1].AsSpan(1), CultureInfo.InvariantCulture));
            var j = int.Parse(parts[2], CultureInfo.InvariantCulture);
            if (change.IsDeleted)
            {
                Assert.Equal(0, j);
                tombstones[key] = tombstones.GetValueOrDefault(key) + 1;
                continue;
            }

            liveCount++;
            using var json = JsonDocument.Parse(change.Body.ToArray());
            Assert.Equal(key.Item2, json.RootElement.GetProperty("b").GetInt64());
            Assert.True(live.TryAdd(key, [j]) || live[key].Add(j));
        }

        Assert.Equal(liveCount, reader.GetStats().DocumentCount);

        // Compressed bodies decompress; dictionary reference counts and stored-bytes counters match the documents.
        var verified = reader.VerifyDocuments();
        Assert.Empty(verified.Problems);
        Assert.True(verified.CompressedDocuments > 0 || liveCount == 0, "the worker writes compressed documents");
        foreach (var ((p, b), _) in live)
        {
            Assert.True(b < positions[p], $"partition {p} batch {b} has documents but the stored next offset is {positions[p]}");
        }

        for (var p = 0; p < CrashBatches.Partitions; p++)
        {
            for (long b = 0; b < positions[p]; b++)
            {
                var count = CrashBatches.DocumentCount(p, b);
                var deleted = b < positions[p] - CrashBatches.DeleteLag;
                var expected = Enumerable.Range(deleted ? 1 : 0, deleted ? count - 1 : count).ToHashSet();
                var actual = live.GetValueOrDefault((p, b)) ?? [];
                Assert.True(expected.SetEquals(actual), $"partition {p} batch {b} (next offset {positions[p]}): documents [{string.Join(",", actual.Order())}], expected [{string.Join(",", expected.Order())}]");
                Assert.Equal(deleted ? 1 : 0, tombstones.GetValueOrDefault((p, b)));
            }
        }

        return positions;
    }
}
