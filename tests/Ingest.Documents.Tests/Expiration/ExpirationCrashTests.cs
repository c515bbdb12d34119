using System.Globalization;
using Ingest.Documents.CrashWorker;
using Ingest.Storage;
using Xunit.Abstractions;

namespace Ingest.Documents.Tests.Expiration;

/// <summary>Kills a child process that expires documents (while another writer puts) with SIGKILL, and checks what survives.</summary>
public sealed class ExpirationCrashTests(ITestOutputHelper output)
{
    private const int Kills = 12;

    [Fact]
    public void Every_due_document_is_deleted_with_its_tombstone_or_still_stored_after_sigkill_and_nothing_else_is_lost() => TestSeed.Run(seed =>
    {
        var worker = CrashWorkerProcess.PathOf("Ingest.Documents.Tests", "Ingest.Documents.CrashWorker");
        using var dir = new TestDirectory();
        var rnd = new Random(seed);
        long written = -1;
        for (var kill = 0; kill < Kills; kill++)
        {
            long reportedWritten = -1;
            long expired = 0;
            CrashWorkerProcess.RunAndKill(worker, dir.Path, rnd.Next(), TimeSpan.FromMilliseconds(rnd.Next(50, 400)), line =>
            {
                var parts = line.Split(' ');
                if (parts.Length != 2 || !long.TryParse(parts[1], CultureInfo.InvariantCulture, out var n))
                {
                    return false;
                }

                if (parts[0] == "written")
                {
                    Interlocked.Exchange(ref reportedWritten, Math.Max(Interlocked.Read(ref reportedWritten), n));
                }
                else if (parts[0] == "expired")
                {
                    Interlocked.Add(ref expired, n);
                }

                return parts[0] == "expired"; // the kill comes while expiration batches commit
            }, "expire");
            written = Math.Max(written, Interlocked.Read(ref reportedWritten));
            var (_, deleted, due) = Verify(dir.Path, written);
            output.WriteLine($"kill {kill}: reported {Interlocked.Read(ref expired)} expired and w/{written} written; stored {deleted} deleted, {due} due");
        }

        // The next run deletes what is left.
        using (var store = DocumentStore.Open(dir.Path, TestDirectory.Options()))
        {
            while (store.DeleteExpiredAsync(DateTime.UtcNow, 1_000).GetAwaiter().GetResult().More)
            {
            }
        }

        var (loaded, finallyDeleted, finallyDue) = Verify(dir.Path, written);
        Assert.Equal(0, finallyDue);
        Assert.Equal(loaded / 2, finallyDeleted);
    });

    /// <summary>
    /// Every even e/{i} loaded is exactly one of: stored with its expiry (due), or a tombstone; every odd one and every w/{k}
    /// the position covers is stored as written; the counters and the expiry tree agree. Returns (loaded, deleted, due).
    /// </summary>
    private static (int Loaded, int Deleted, int Due) Verify(string directory, long reportedWritten)
    {
        using var store = DocumentStore.Open(directory, TestDirectory.Options(SyncMode.NoSyncUnsafe));
        using var reader = store.BeginRead();
        var loaded = (int)(reader.GetSourcePosition(ExpirationCrash.LoadSource, 0)?.Position.NextOffset ?? 0) * ExpirationCrash.LoadBatch;
        var writes = reader.GetSourcePosition(ExpirationCrash.WriteSource, 0)?.Position.NextOffset ?? 0;
        Assert.True(writes > reportedWritten, $"w/{reportedWritten} was reported durable, but the stored position is {writes}");

        var live = new Dictionary<string, string>(StringComparer.Ordinal);
        var tombstones = new HashSet<string>(StringComparer.Ordinal);
        long liveDue = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            if (change.IsDeleted)
            {
                Assert.True(tombstones.Add(change.Id), $"{change.Id} has two tombstones");
                continue;
            }

            live.Add(change.Id, System.Text.Encoding.UTF8.GetString(change.Body));
            if (change.ExpiresAt is not null)
            {
                liveDue++;
            }
        }

        var deleted = 0;
        for (var i = 0; i < loaded; i++)
        {
            var id = ExpirationCrash.LoadedId(i);
            if (i % 2 == 1)
            {
                Assert.Equal(ExpirationCrash.LoadedBody(i), live[id]);
                Assert.DoesNotContain(id, tombstones);
                continue;
            }

            Assert.True(live.ContainsKey(id) ^ tombstones.Contains(id), $"{id}: stored {live.ContainsKey(id)}, tombstone {tombstones.Contains(id)}");
            deleted += tombstones.Contains(id) ? 1 : 0;
        }

        for (long k = 0; k < writes; k++)
        {
            Assert.Equal(FormattableString.Invariant($"{{\"k\":{k}}}"), live[ExpirationCrash.WrittenId(k)]);
        }

        Assert.Equal(loaded + writes - deleted, live.Count);
        Assert.Equal(deleted, tombstones.Count);
        Assert.Equal(live.Count, reader.GetStats().DocumentCount);
        var (expiring, due) = reader.CountExpiring(DateTime.UtcNow);
        Assert.Equal(liveDue, expiring);
        Assert.Equal(liveDue, due);
        Assert.Equal(loaded / 2 - deleted, due);
        return (loaded, deleted, (int)due);
    }
}
