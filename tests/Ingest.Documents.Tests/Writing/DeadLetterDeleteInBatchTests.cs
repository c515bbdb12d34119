using System.Text;

namespace Ingest.Documents.Tests.Writing;

public sealed class DeadLetterDeleteInBatchTests
{
    [Fact]
    public void A_put_and_the_delete_of_a_dead_letter_commit_together()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch()
            .AddDeadLetter("not json"u8, new SourcePosition("kafka/orders", 0, 7), "not JSON")
            .AddDeadLetter("other"u8, new SourcePosition("kafka/orders", 0, 8), "not JSON"));
        var first = store.GetDeadLetters()[0];

        var result = store.Write(new WriteBatch().Put("orders/1", "Orders", "{\"fixed\":true}").DeleteDeadLetter(first.Id));

        Assert.Equal(1, result.FirstEtag);
        Assert.Equal("{\"fixed\":true}", Encoding.UTF8.GetString(store.Get("orders/1")!.Body.Span));
        Assert.Null(store.GetDeadLetter(first.Id));
        var left = Assert.Single(store.GetDeadLetters());
        Assert.Equal(8, left.Position.NextOffset);
        Assert.Equal(1, store.GetStats().DeadLetterCount);
    }

    [Fact]
    public void A_rejected_batch_keeps_the_dead_letter_it_would_have_deleted()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().AddDeadLetter("x"u8, new SourcePosition("s/q", 0, 1), "r"));
        var id = store.GetDeadLetters()[0].Id;

        var error = Assert.Throws<InvalidDocumentException>(() =>
            store.Write(new WriteBatch().DeleteDeadLetter(id).Put("a", "C", "{not json")));

        Assert.Contains("not valid JSON", error.Message, StringComparison.Ordinal);
        Assert.NotNull(store.GetDeadLetter(id));
        Assert.Null(store.Get("a"));
        Assert.Equal(1, store.GetStats().DeadLetterCount);
    }

    [Fact]
    public void Deleting_an_absent_dead_letter_in_a_batch_is_a_no_op_and_the_rest_commits()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().AddDeadLetter("x"u8, new SourcePosition("s/q", 0, 1), "r"));
        var id = store.GetDeadLetters()[0].Id;

        store.Write(new WriteBatch().DeleteDeadLetter(id + 100).Put("a", "C", "{}"));
        store.Write(new WriteBatch().DeleteDeadLetter(id));
        store.Write(new WriteBatch().DeleteDeadLetter(id).Put("b", "C", "{}"));

        Assert.NotNull(store.Get("a"));
        Assert.NotNull(store.Get("b"));
        Assert.Null(store.GetDeadLetter(id));
        Assert.Empty(store.GetDeadLetters());
        Assert.Equal(0, store.GetStats().DeadLetterCount);
    }

    [Fact]
    public void A_dead_letter_id_below_one_is_rejected_before_anything_is_written()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var error = Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Put("a", "C", "{}").DeleteDeadLetter(0)));

        Assert.Contains("dead letter id 0", error.Message, StringComparison.Ordinal);
        Assert.Null(store.Get("a"));
    }

    [Fact]
    public void A_dead_letter_deleted_in_a_batch_stays_deleted_after_reopening()
    {
        using var dir = new TestDirectory();
        long id;
        using (var store = dir.Open(Ingest.Storage.SyncMode.Durable))
        {
            store.Write(new WriteBatch().AddDeadLetter("x"u8, new SourcePosition("s/q", 0, 1), "r").AddDeadLetter("y"u8, new SourcePosition("s/q", 0, 2), "r"));
            id = store.GetDeadLetters()[0].Id;
            store.Write(new WriteBatch().Put("a", "C", "{}").DeleteDeadLetter(id));
        }

        using var reopened = dir.Open(Ingest.Storage.SyncMode.Durable);
        Assert.Null(reopened.GetDeadLetter(id));
        Assert.Single(reopened.GetDeadLetters());
        Assert.Equal(1, reopened.GetStats().DeadLetterCount);
        Assert.NotNull(reopened.Get("a"));
    }
}
