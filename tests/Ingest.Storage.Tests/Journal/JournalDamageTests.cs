using static Ingest.Storage.Tests.Journal.RecoveryTests;

namespace Ingest.Storage.Tests.Journal;

/// <summary>
/// Journal files are zero-filled before use, so a missing, emptied or truncated one is damage that
/// loses acknowledged commits: open refuses it, naming the file, offset and transactions at risk,
/// unless the loss is accepted explicitly.
/// </summary>
public sealed class JournalDamageTests
{
    [Fact]
    public void Truncated_newest_journal_is_refused_naming_file_offset_and_transactions_at_risk()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        var (offset, _) = Records(journal)[3];
        using (var f = new FileStream(journal, FileMode.Open, FileAccess.Write))
        {
            f.SetLength(offset + 4096); // record 4 (transaction 4) loses its end, record 5 is gone
        }

        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));

        Assert.Equal(journal, ex.FilePath);
        Assert.Equal(offset, ex.Offset);
        Assert.Contains("truncated", ex.Message, StringComparison.Ordinal);
        Assert.Contains("after transaction 3", ex.Message, StringComparison.Ordinal);
        Assert.Contains("AcceptJournalLoss", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Journal_truncated_at_a_record_boundary_is_refused()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        var (offset, _) = Records(journal)[3];
        using (var f = new FileStream(journal, FileMode.Open, FileAccess.Write))
        {
            f.SetLength(offset);
        }

        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));

        Assert.Equal(journal, ex.FilePath);
        Assert.Equal(offset, ex.Offset);
        Assert.Contains("after transaction 3", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Zero_length_journal_is_refused()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        File.WriteAllBytes(journal, []);

        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));

        Assert.Equal(journal, ex.FilePath);
        Assert.Equal(0, ex.Offset);
        Assert.Contains("is 0 bytes", ex.Message, StringComparison.Ordinal);
        Assert.Contains("after transaction 0", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Deleted_newest_journal_is_refused()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir);
        var journal = Assert.Single(dir.JournalFiles);
        File.Delete(journal);

        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));

        Assert.Equal(journal, ex.FilePath);
        Assert.Contains("is missing", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Deleted_middle_journal_is_refused_naming_the_lost_transaction_range()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir, transactions: 30);
        var journals = dir.JournalFiles;
        Assert.True(journals.Length >= 3, $"expected several journal files, got {journals.Length}");
        var lastTx = 30;
        File.Delete(journals[1]);

        var ex = Assert.Throws<StorageCorruptionException>(() => CountKeys(dir));

        Assert.Equal(journals[1], ex.FilePath);
        Assert.Contains("is missing", ex.Message, StringComparison.Ordinal);
        Assert.Contains($"to {lastTx}", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Accepting_the_loss_opens_with_the_intact_transactions_and_reports_what_was_lost()
    {
        using var dir = new TestDirectory();
        CommitAndCrash(dir, transactions: 30);
        var journals = dir.JournalFiles;
        File.Delete(journals[1]);
        var options = TestDirectory.Options(backgroundFlush: false);
        options.AcceptJournalLoss = true;

        long intact;
        using (var env = StorageEnvironment.Open(dir.Path, options))
        {
            var loss = Assert.IsType<JournalLoss>(env.AcceptedJournalLoss);
            Assert.Equal(journals[1], loss.FilePath);
            Assert.Equal(30, loss.LastKnownTransaction);
            intact = loss.LastRecoveredTransaction;
            Assert.InRange(intact, 1, 29);
            Assert.Equal(intact, env.LastCommittedTransactionId);
            using (var read = env.BeginRead())
            {
                Assert.Equal(intact * 2, read.OpenTree("t")!.Count);
            }

            // The store goes on from there; the given-up history does not come back.
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Keys.Of("after"), [1]);
            tx.Commit();
            env.SimulateCrashOnDispose = true;
        }

        Assert.Equal((intact * 2) + 1, CountKeys(dir));
    }

    [Fact]
    public void Journals_of_a_store_that_was_flushed_and_reopened_many_times_are_not_mistaken_for_damage()
    {
        using var dir = new TestDirectory();
        for (var round = 0; round < 4; round++)
        {
            using var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options());
            for (var i = 0; i < 12; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Keys.Of($"{round}/{i}"), new byte[20_000]);
                tx.Commit();
                if (i == 6)
                {
                    env.FlushNow();
                }
            }

            env.SimulateCrashOnDispose = round % 2 == 0;
        }

        Assert.Equal(48, CountKeys(dir));
    }

    [Fact]
    public void A_store_closed_cleanly_after_a_commit_larger_than_a_journal_file_reopens()
    {
        using var dir = new TestDirectory();
        using (var env = StorageEnvironment.Open(dir.Path, TestDirectory.Options(backgroundFlush: false)))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Keys.Of("big"), new byte[1024 * 1024]); // its record gets a file of its own
            tx.Commit();
        }

        Assert.Equal(1, CountKeys(dir));
    }
}
