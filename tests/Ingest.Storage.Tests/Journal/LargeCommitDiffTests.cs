using System.Text;

namespace Ingest.Storage.Tests.Journal;

/// <summary>
/// A commit that changes more than 128 existing pages has its page diffs encoded by two threads, each
/// page into its own slot, then packed in page order. Replay after a crash must rebuild every page.
/// </summary>
public sealed class LargeCommitDiffTests
{
    [Fact]
    public void Commits_changing_hundreds_of_existing_leaves_replay_exactly_after_a_crash() => TestSeed.Run(seed =>
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options(backgroundFlush: false);
        options.JournalFileSize = 8 * 1024 * 1024;
        var rnd = new Random(seed);
        var expected = new Dictionary<string, byte[]>();
        var env = StorageEnvironment.Open(dir.Path, options);

        // ~20k keys in some 400 leaves, then commits that each rewrite keys all over them.
        Put(env, rnd, expected, Enumerable.Range(0, 20_000), rnd.Next(80, 120));
        env.FlushNow();
        for (var commit = 0; commit < 4; commit++)
        {
            Put(env, rnd, expected, Enumerable.Range(0, 3_000).Select(_ => rnd.Next(20_000)), rnd.Next(60, 140));
        }

        env.SimulateCrashOnDispose = true;
        env.Dispose();
        using var reopened = StorageEnvironment.Open(dir.Path, options);
        RandomWrites.AssertHolds(reopened, expected);
    });

    private static void Put(StorageEnvironment env, Random rnd, Dictionary<string, byte[]> expected, IEnumerable<int> keys, int valueLength)
    {
        using var tx = env.BeginWrite();
        var data = tx.CreateTree("data");
        foreach (var k in keys)
        {
            var key = $"k/{k:D8}";
            var value = new byte[valueLength];
            rnd.NextBytes(value);
            data.Put(Encoding.UTF8.GetBytes(key), value);
            expected[key] = value;
        }

        tx.Commit();
    }
}
