namespace Ingest.Documents.Tests;

/// <summary><see cref="DocumentStore.BeginReadWhileWritesPausedAsync"/>: a snapshot taken at a moment no write commits.</summary>
public sealed class PausedReadTests
{
    [Fact]
    public async Task The_callback_sees_the_last_commit_and_nothing_commits_while_it_runs()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(async () =>
        {
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                await store.WriteAsync(new WriteBatch().Put($"doc/{i}", "Docs", "{}"));
            }
        });

        try
        {
            while (store.LastEtag < 100)
            {
                await Task.Yield();
            }

            for (var round = 0; round < 20; round++)
            {
                using var seen = await store.BeginReadWhileWritesPausedAsync(reader =>
                {
                    var before = store.LastEtag;
                    Thread.Sleep(5); // the writer has batches queued: none may commit meanwhile
                    return new Seen(reader, before, store.LastEtag);
                });

                Assert.Equal(seen.Before, seen.After);
                Assert.Equal(seen.Before, seen.Reader.LastEtag);
            }

            Assert.True(store.LastEtag > 100);
        }
        finally
        {
            await stop.CancelAsync();
            await writer;
        }
    }

    [Fact]
    public async Task A_callback_that_throws_fails_the_call_and_the_store_writes_on()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var ex = await Assert.ThrowsAsync<InvalidOperationException>(() => store.BeginReadWhileWritesPausedAsync<Seen>(reader =>
        {
            reader.Dispose();
            throw new InvalidOperationException("boom");
        }));

        Assert.Equal("boom", ex.Message);
        await store.WriteAsync(new WriteBatch().Put("a", "Docs", "{}"));
        Assert.Equal(1, store.LastEtag);
    }

    private sealed record Seen(DocumentReader Reader, long Before, long After) : IDisposable
    {
        public void Dispose() => Reader.Dispose();
    }
}
