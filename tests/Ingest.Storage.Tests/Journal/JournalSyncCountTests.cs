namespace Ingest.Storage.Tests.Journal;

public sealed class JournalSyncCountTests
{
    [Theory]
    [InlineData(SyncMode.Durable, 5)]
    [InlineData(SyncMode.NoSyncUnsafe, 0)]
    public void Each_durable_commit_costs_one_journal_sync(SyncMode mode, long expectedSyncs)
    {
        using var dir = new TestDirectory();
        using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(sync: mode));
        var before = env.JournalSyncCount;
        for (var i = 0; i < 5; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put([(byte)i], [1]);
            tx.Commit();
        }

        using (var aborted = env.BeginWrite())
        {
            aborted.CreateTree("t").Put([9], [9]);
        }

        Assert.Equal(expectedSyncs, env.JournalSyncCount - before);
    }
}
