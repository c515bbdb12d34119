namespace Ingest.Storage.Tests.Journal;

/// <summary>Open makes the first journal file ready, so the first commit does not create and zero-fill one.</summary>
public sealed class JournalFirstFileTests
{
    [Fact]
    public void A_fresh_environment_has_its_journal_file_before_the_first_commit_and_the_commit_uses_it()
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options(sync: SyncMode.Durable);
        using var env = StorageEnvironment.Open(dir.Path, options);

        var journal = Assert.Single(dir.JournalFiles);
        Assert.Equal(options.JournalFileSize, new FileInfo(journal).Length);
        Assert.Equal(1, env.JournalFileCount);

        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Keys.Of("a"), Keys.Of("1"));
            tx.Commit();
        }

        Assert.Equal([journal], dir.JournalFiles);
        Assert.Equal(1, env.JournalFileCount);
    }

    [Fact]
    public void Reopening_recycles_a_spare_for_the_first_file_and_keeps_the_data()
    {
        using var dir = new TestDirectory();
        for (var round = 0; round < 3; round++)
        {
            using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
            Assert.Equal(1, env.JournalFileCount);
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t").Put(Keys.Of(round), Keys.Of("v"));
                tx.Commit();
            }

            env.SimulateCrashOnDispose = round == 1;
            Assert.True(dir.JournalFiles.Length <= 3, $"{dir.JournalFiles.Length} journal files: the current one and at most two spares");
        }

        using var reopened = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
        using var read = reopened.BeginRead();
        Assert.Equal(3, read.OpenTree("t")!.Count);
    }
}
