using Ingest.Storage;

namespace Ingest.Documents.Tests.Writing;

/// <summary>
/// A full disk fails the writes whose transaction could not be journaled, with
/// <see cref="DiskFullException"/>, leaves no trace of them in memory or on disk, and the store
/// resumes by itself once space is back.
/// </summary>
public sealed class DiskFullTests
{
    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the condition did not become true within 30 s");
            await Task.Delay(10);
        }
    }

    [Fact]
    public async Task Writes_fail_with_DiskFull_while_the_disk_is_full_and_resume_without_a_reopen()
    {
        using var dir = new TestDirectory();
        using (var store = dir.Open())
        {
            await store.WriteAsync(new WriteBatch().Put("a", "C", "{\"n\":1}"));

            store.Environment.Faults.DiskFull = true;
            var failed = Enumerable.Range(0, 8).Select(i => store.WriteAsync(new WriteBatch().Put($"lost/{i}", "C", "{}"))).ToList();
            foreach (var write in failed)
            {
                await Assert.ThrowsAsync<DiskFullException>(() => write);
            }

            Assert.NotNull(store.DiskFull);
            Assert.Equal(1, store.LastEtag);
            Assert.Equal(1, store.GetStats().DocumentCount);
            Assert.Null(store.Get("lost/0"));

            store.Environment.Faults.DiskFull = false;
            await WaitUntilAsync(() => store.DiskFull == null);

            var result = await store.WriteAsync(new WriteBatch().Put("b", "C", "{\"n\":2}"));
            Assert.Equal(2, result.LastEtag); // the failed writes took no etag
            Assert.Equal(2, store.GetStats().DocumentCount);
            store.Environment.SimulateCrashOnDispose = true;
        }

        using var reopened = dir.Open();
        Assert.NotNull(reopened.Get("a"));
        Assert.NotNull(reopened.Get("b"));
        Assert.Null(reopened.Get("lost/0"));
        Assert.Equal(2, reopened.LastEtag);
        Assert.Equal(2, reopened.GetStats().DocumentCount);
    }
}
