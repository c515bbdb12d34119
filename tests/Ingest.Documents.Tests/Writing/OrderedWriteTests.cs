using Ingest.Storage;

namespace Ingest.Documents.Tests.Writing;

/// <summary>
/// <see cref="DocumentStore.WriteAfterAsync"/>: a batch queued behind another commits only if that
/// one did, so a source's later positions never become durable past an earlier batch that failed;
/// and <see cref="WriteBatch.PutValidated"/>, which skips the store's second read of the body.
/// </summary>
public sealed class OrderedWriteTests
{
    [Fact]
    public async Task A_write_ordered_after_a_failed_write_fails_and_writes_nothing()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var first = new WriteBatch().Put("a/1", "A", "{}").SetSourcePosition("s", 0, 1);
        await store.WriteAsync(first);

        store.Environment.Faults.DiskFull = true;
        first.Clear();
        first.Put("a/2", "A", "{}").SetSourcePosition("s", 0, 2);
        await Assert.ThrowsAsync<DiskFullException>(() => store.WriteAsync(first));
        store.Environment.Faults.DiskFull = false;

        var second = new WriteBatch().Put("a/3", "A", "{}").SetSourcePosition("s", 0, 3);
        await Assert.ThrowsAsync<PredecessorWriteFailedException>(() => store.WriteAfterAsync(second, first));
        Assert.Null(store.Get("a/3"));
        Assert.Equal(1, store.GetSourcePosition("s", 0)!.Value.Position.NextOffset);

        // Once the predecessor is written again, the successor can follow it.
        await store.WriteAsync(first);
        await store.WriteAfterAsync(second, first);
        Assert.NotNull(store.Get("a/2"));
        Assert.NotNull(store.Get("a/3"));
        Assert.Equal(3, store.GetSourcePosition("s", 0)!.Value.Position.NextOffset);
    }

    [Fact]
    public async Task Writes_queued_behind_each_other_all_commit_in_order()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);
        WriteBatch[] batches = [new WriteBatch(), new WriteBatch()];
        var writes = new Task<WriteResult>?[2];
        var etags = new List<long>();
        for (var i = 0; i < 50; i++)
        {
            var slot = i % 2;
            if (writes[slot] is { } earlier)
            {
                // The batch in this slot was queued two rounds ago; it must be done before reuse.
                etags.Add((await earlier).LastEtag);
            }

            var batch = batches[slot];
            batch.Clear();
            batch.Put($"d/{i}", "D", $"{{\"i\":{i}}}").SetSourcePosition("s", 0, i + 1);
            writes[slot] = i == 0 ? store.WriteAsync(batch) : store.WriteAfterAsync(batch, batches[1 - slot]);
        }

        etags.Add((await writes[0]!).LastEtag);
        etags.Add((await writes[1]!).LastEtag);
        Assert.Equal(Enumerable.Range(1, 50).Select(e => (long)e), etags);
        Assert.Equal(50, store.GetStats().DocumentCount);
        Assert.Equal(50, store.GetSourcePosition("s", 0)!.Value.Position.NextOffset);
    }

    [Fact]
    public async Task A_predecessor_still_in_flight_lets_its_successor_commit_after_it()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open(SyncMode.Durable);
        var first = new WriteBatch();
        var second = new WriteBatch();
        for (var i = 0; i < 2000; i++)
        {
            first.Put($"f/{i}", "F", $"{{\"i\":{i}}}");
        }

        first.SetSourcePosition("s", 0, 1);
        second.Put("g/1", "G", "{}").SetSourcePosition("s", 0, 2);
        var one = store.WriteAsync(first);
        var two = store.WriteAfterAsync(second, first);
        var results = await Task.WhenAll(one, two);
        Assert.True(results[1].FirstEtag > results[0].LastEtag);
        Assert.Equal(2, store.GetSourcePosition("s", 0)!.Value.Position.NextOffset);
    }

    [Fact]
    public void A_predecessor_never_written_to_this_store_is_refused()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var ex = Assert.Throws<ArgumentException>(() => { _ = store.WriteAfterAsync(new WriteBatch().Put("a", "A", "{}"), new WriteBatch()); });
        Assert.Contains("never written to this store", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PutValidated_skips_the_json_check_but_not_the_size_checks()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        // The plain put reads the body; the validated one takes the caller's word for it.
        Assert.Throws<InvalidDocumentException>(() => { _ = store.WriteAsync(new WriteBatch().Put("a", "A", "{\"n\":"u8)); });
        await store.WriteAsync(new WriteBatch().PutValidated("a", "A", "{\"n\":"u8));
        Assert.Equal("{\"n\":", System.Text.Encoding.UTF8.GetString(store.Get("a")!.Body.Span));

        var empty = Assert.Throws<InvalidDocumentException>(() => { _ = store.WriteAsync(new WriteBatch().PutValidated("b", "A", ReadOnlySpan<byte>.Empty)); });
        Assert.Contains("empty", empty.Message, StringComparison.Ordinal);
        var tooLarge = new byte[store.Options.MaxBodyBytes + 1];
        var large = Assert.Throws<InvalidDocumentException>(() => { _ = store.WriteAsync(new WriteBatch().PutValidated("b", "A", tooLarge)); });
        Assert.Contains("limit", large.Message, StringComparison.Ordinal);
    }
}
