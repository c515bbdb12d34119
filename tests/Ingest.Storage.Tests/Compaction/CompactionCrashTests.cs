using Xunit.Abstractions;

namespace Ingest.Storage.Tests.Compaction;

/// <summary>Kills a child process with SIGKILL while it compacts a store, again and again: the store must read the same after each kill.</summary>
public sealed class CompactionCrashTests(ITestOutputHelper output)
{
    private const int Kills = 8;

    [Fact]
    public void A_kill_during_compaction_leaves_the_store_readable_and_unchanged() => TestSeed.Run(seed =>
    {
        var worker = CrashWorkerProcess.PathOf("Ingest.Storage.Tests", "Ingest.Storage.CrashWorker");
        using var dir = new TestDirectory();
        StoreContents.FillAndDeleteHalf(dir.Path, seed, count: 30_000);
        var expected = StoreContents.Read(dir.Path);
        var rnd = new Random(seed);
        var compactions = 0;
        for (var kill = 0; kill < Kills; kill++)
        {
            var completed = 0;
            CrashWorkerProcess.RunAndKill(worker, dir.Path, seed, TimeSpan.FromMilliseconds(rnd.Next(0, 600)), line =>
            {
                if (line == "compacted")
                {
                    Interlocked.Increment(ref completed);
                }

                return true;
            }, "compact");
            compactions += completed;
            output.WriteLine($"kill {kill}: {completed} compactions finished before it");

            Assert.Equal(expected, StoreContents.Read(dir.Path));
            using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
            Assert.True(env.Verify().IsClean);
        }

        output.WriteLine($"{compactions} compactions finished across {Kills} kills");
    });
}
