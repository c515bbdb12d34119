using Ingest.Storage.Tests.Journal;

namespace Ingest.Storage.Tests.Verification;

public sealed class VerifyTests
{
    private static void Fill(TestDirectory dir, int seed)
    {
        var random = new Random(seed);
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        for (var round = 0; round < 20; round++)
        {
            using var tx = env.BeginWrite();
            var docs = tx.CreateTree("docs");
            var etags = tx.CreateFixedSizeTree("etags", 8);
            var posting = tx.CreatePostingList("terms");
            var additions = new List<long>();
            for (var i = 0; i < 300; i++)
            {
                var k = random.Next(2000);
                docs.Put(Keys.Of(k), new byte[random.Next(2) == 0 ? 50 : 3000]);
                etags.Put(k, new byte[8]);
                additions.Add((round * 10_000L) + (k * 3));
                if (random.Next(5) == 0)
                {
                    docs.Delete(Keys.Of(random.Next(2000)));
                    etags.Delete(random.Next(2000));
                }
            }

            additions.Sort();
            posting.Update(additions.Distinct().ToArray(), []);
            tx.Commit();
        }
    }

    [Fact]
    public void A_sound_store_verifies_clean()
    {
        TestSeed.Run(seed =>
        {
            using var dir = new TestDirectory();
            Fill(dir, seed);
            using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());

            var report = env.Verify();

            Assert.True(report.IsClean, string.Join(Environment.NewLine, report.Damaged));
            Assert.Equal(4, report.TreesChecked);
            Assert.True(report.PagesChecked > 100, $"checked {report.PagesChecked} pages");
        });
    }

    [Fact]
    public void A_page_damaged_on_disk_is_reported_with_its_number_offset_kind_and_tree()
    {
        using var dir = new TestDirectory();
        Fill(dir, 1);
        long leaf;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        using (var read = env.BeginRead())
        {
            leaf = read.OpenTree("docs")!.RootPage; // a branch: the tree has several levels
        }

        RecoveryTests.Flip(dir.DataFile, (leaf * 8192) + 6000);

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        var report = reopened.Verify();

        var damaged = Assert.Single(report.Damaged);
        Assert.Equal(leaf, damaged.Page);
        Assert.Equal(leaf * 8192, damaged.Offset);
        Assert.Equal(dir.DataFile, damaged.FilePath);
        Assert.Equal("docs", damaged.Tree);
        Assert.Equal("tree page", damaged.Kind);
        Assert.Contains("checksum", damaged.Problem, StringComparison.Ordinal);
    }

    [Fact]
    public void A_read_that_finds_a_damaged_page_marks_the_environment()
    {
        using var dir = new TestDirectory();
        Fill(dir, 2);
        long root;
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options()))
        using (var read = env.BeginRead())
        {
            root = read.OpenTree("docs")!.RootPage;
        }

        RecoveryTests.Flip(dir.DataFile, (root * 8192) + 40);

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        Assert.Null(reopened.Corruption);
        using var tx = reopened.BeginRead();
        var ex = Assert.Throws<StorageCorruptionException>(() => tx.OpenTree("docs")!.TryGet(Keys.Of(1), out _));

        Assert.Same(ex, reopened.Corruption);
        Assert.Equal(root, ex.Page);
    }
}
