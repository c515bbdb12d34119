using System.Text;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Tests.Sources;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Batching;

public sealed class BatchWriterTests : IDisposable
{
    private readonly TempDocumentStore _temp = new();

    private DocumentStore Store => _temp.Store;

    [Fact]
    public async Task A_batch_commits_documents_dead_letters_and_positions_together_before_it_is_acknowledged()
    {
        var source = new RecordingAcknowledger(Store);
        await using var writer = new BatchWriter("test", Store, new BatchingOptions { MaxMessages = 3 }, source, source, NullLogger.Instance);

        await writer.AddAsync(Put("a", 0));
        await writer.AddAsync(DeadLetter(1));
        await writer.AddAsync(Put("b", 2));
        await writer.DrainAsync();

        var acknowledged = Assert.Single(source.Acknowledged);
        Assert.Equal([0L, 1, 2], acknowledged);
        Assert.True(source.DocumentsPresentWhenAcknowledged);
        Assert.NotNull(Store.Get("a"));
        Assert.NotNull(Store.Get("b"));
        var deadLetter = Assert.Single(Store.GetDeadLetters());
        Assert.Equal("not json", deadLetter.Reason);
        Assert.Equal(new SourcePosition("test/topic", 0, 1), deadLetter.Position);
        Assert.Equal(3, Store.GetSourcePosition("test/topic", 0)!.Value.Position.NextOffset);
        Assert.Equal(2, writer.Written);
        Assert.Equal(1, writer.DeadLetters);
        Assert.Equal(3, writer.Done);
        Assert.Equal(1, writer.Statistics.Commits);
    }

    [Fact]
    public async Task Items_the_source_no_longer_owns_are_dropped_not_written()
    {
        var source = new RecordingAcknowledger(Store) { CurrentEpoch = 2 };
        await using var writer = new BatchWriter("test", Store, new BatchingOptions(), source, source, NullLogger.Instance);

        await writer.AddAsync(Put("old", 0, epoch: 1));
        await writer.AddAsync(Put("new", 1, epoch: 2));
        await writer.DrainAsync();

        Assert.Null(Store.Get("old"));
        Assert.NotNull(Store.Get("new"));
        Assert.Equal(1, writer.Dropped);
        Assert.Equal(1, writer.Written);
    }

    [Fact]
    public async Task Positions_account_for_exactly_the_items_written_when_some_of_a_batch_are_dropped()
    {
        var source = new RecordingAcknowledger(Store) { CurrentEpoch = 2 };
        await using var writer = new BatchWriter("test", Store, new BatchingOptions { MaxMessages = 5 }, source, source, NullLogger.Instance);

        await writer.AddAsync(Put("a", 0, epoch: 2));
        await writer.AddAsync(Put("b", 1, epoch: 2));
        await writer.AddAsync(Put("stale", 5, epoch: 1));
        await writer.AddAsync(Put("c", 2, epoch: 2));
        await writer.AddAsync(Put("stale-too", 7, epoch: 1));
        await writer.DrainAsync();

        Assert.Equal(3, Store.GetSourcePosition("test/topic", 0)!.Value.Position.NextOffset);
        Assert.Null(Store.Get("stale"));
        Assert.NotNull(Store.Get("c"));
        Assert.Equal(3, writer.Written);
        Assert.Equal(2, writer.Dropped);
    }

    [Fact]
    public async Task A_message_the_store_rejects_becomes_a_dead_letter_and_the_rest_of_its_batch_lands()
    {
        var source = new RecordingAcknowledger(Store);
        await using var writer = new BatchWriter("test", Store, new BatchingOptions(), source, source, NullLogger.Instance);
        var tooLongId = new string('x', DocumentStoreOptions.MaxIdBytes + 1);

        await writer.AddAsync(Put("first", 0));
        await writer.AddAsync(Put(tooLongId, 1));
        await writer.AddAsync(Put("last", 2));
        await writer.DrainAsync();

        Assert.NotNull(Store.Get("first"));
        Assert.NotNull(Store.Get("last"));
        var deadLetter = Assert.Single(Store.GetDeadLetters());
        Assert.StartsWith("Rejected by the store:", deadLetter.Reason, StringComparison.Ordinal);
        Assert.Equal(1, deadLetter.Position.NextOffset);
        Assert.Equal(3, Store.GetSourcePosition("test/topic", 0)!.Value.Position.NextOffset);
    }

    [Fact]
    public async Task A_writer_whose_store_failed_for_good_disposes_without_throwing_and_refuses_more_items()
    {
        using var failing = new TempDocumentStore();
        var source = new RecordingAcknowledger(failing.Store);
        var writer = new BatchWriter("test", failing.Store, new BatchingOptions { MaxMessages = 1 }, source, source, NullLogger.Instance);
        failing.Store.Dispose();

        await writer.AddAsync(Put("a", 0));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => writer.DrainAsync());
        Assert.True(SpinWait.SpinUntil(() => writer.IsStopped, TimeSpan.FromSeconds(30)), "the writer's loop stopped");

        await writer.DisposeAsync();

        await Assert.ThrowsAsync<InvalidOperationException>(() => writer.AddAsync(Put("b", 1)).AsTask());
        Assert.Empty(source.Acknowledged);
    }

    [Fact]
    public async Task Complete_writes_what_is_queued_and_then_refuses_more()
    {
        var source = new RecordingAcknowledger(Store);
        var writer = new BatchWriter("test", Store, new BatchingOptions { MaxDelay = TimeSpan.FromHours(1) }, source, source, NullLogger.Instance);

        await writer.AddAsync(Put("queued", 0));
        await writer.CompleteAsync();

        Assert.NotNull(Store.Get("queued"));
        Assert.True(writer.IsStopped);
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await writer.AddAsync(Put("late", 1)));
        await writer.DisposeAsync();
    }

    [Fact]
    public async Task A_put_the_mapper_validated_is_not_parsed_again_but_one_it_did_not_is()
    {
        var source = new RecordingAcknowledger(Store);
        await using var writer = new BatchWriter("test", Store, new BatchingOptions(), source, source, NullLogger.Instance);
        var truncated = Encoding.UTF8.GetBytes("""{"n":""");

        // The flag is the mapper's promise; broken here on purpose to show the store takes it.
        await writer.AddAsync(Put("trusted", 0) with { Payload = truncated, BodyValidated = true });
        await writer.AddAsync(Put("checked", 1) with { Payload = truncated });
        await writer.DrainAsync();

        Assert.NotNull(Store.Get("trusted"));
        Assert.Null(Store.Get("checked"));
        Assert.StartsWith("Rejected by the store:", Assert.Single(Store.GetDeadLetters()).Reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Batches_written_while_earlier_ones_commit_are_acknowledged_in_order_and_positions_never_go_back()
    {
        var source = new RecordingAcknowledger(Store);
        await using var writer = new BatchWriter("test", Store, new BatchingOptions { MaxMessages = 1 }, source, source, NullLogger.Instance);

        for (var offset = 0; offset < 200; offset++)
        {
            await writer.AddAsync(Put($"doc-{offset}", offset));
        }

        await writer.DrainAsync();

        Assert.Equal(200, source.Acknowledged.Count);
        for (var i = 0; i < 200; i++)
        {
            Assert.Equal([(long)i], source.Acknowledged[i]);
        }

        Assert.True(source.DocumentsPresentWhenAcknowledged);
        Assert.Equal(200, Store.GetSourcePosition("test/topic", 0)!.Value.Position.NextOffset);
        Assert.Equal(200, writer.Written);
        Assert.Equal(200, writer.Done);
    }

    [Fact]
    public async Task A_batch_the_store_refuses_at_once_is_retried_before_any_later_batch_is_written()
    {
        var source = new RecordingAcknowledger(Store);
        await using var writer = new BatchWriter("test", Store, new BatchingOptions { MaxMessages = 1 }, source, source, NullLogger.Instance);
        var tooLongId = new string('x', DocumentStoreOptions.MaxIdBytes + 1);

        await writer.AddAsync(Put("a", 0));
        await writer.AddAsync(Put(tooLongId, 1));
        await writer.AddAsync(Put("b", 2));
        await writer.AddAsync(Put("c", 3));
        await writer.DrainAsync();

        Assert.Equal([[0L], [1L], [2L], [3L]], source.Acknowledged);
        Assert.Equal(1, Assert.Single(Store.GetDeadLetters()).Position.NextOffset);
        Assert.NotNull(Store.Get("c"));
        Assert.Equal(4, Store.GetSourcePosition("test/topic", 0)!.Value.Position.NextOffset);
        Assert.Equal(3, writer.Written);
        Assert.Equal(1, writer.DeadLetters);
    }

    public void Dispose() => _temp.Dispose();

    private static IngestItem Put(string id, long offset, int epoch = 0) =>
        new(IngestItemKind.Put, id, "things", Encoding.UTF8.GetBytes($$"""{"n":{{offset}}}"""), null, new ItemPosition("test/topic", 0, offset, epoch));

    private static IngestItem DeadLetter(long offset) =>
        new(IngestItemKind.DeadLetter, null, null, "garbage"u8.ToArray(), "not json", new ItemPosition("test/topic", 0, offset, 0));
}
