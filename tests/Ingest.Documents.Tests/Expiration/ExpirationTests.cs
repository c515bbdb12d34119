using System.Text;
using Ingest.Documents.Expiration;
using Ingest.Documents.Records;
using Ingest.Testing;

namespace Ingest.Documents.Tests.Expiration;

public sealed class ExpirationTests
{
    private static readonly DateTime Past = new(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private static readonly DateTime Future = new(2100, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static string Expiring(string id, DateTime at) =>
        $"{{\"id\":\"{id}\",\"@metadata\":{{\"other\":[1,{{\"x\":2}}],\"@expires\":\"{at:yyyy-MM-ddTHH:mm:ssZ}\"}},\"n\":1}}";

    [Fact]
    public void A_document_with_an_expiry_reads_its_body_and_expiry_back_and_one_without_reads_as_before()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var body = Expiring("a", Future);

        store.Write(new WriteBatch().Put("a", "C", body).Put("b", "C", "{\"n\":2}"));

        using var reader = store.BeginRead();
        Assert.True(reader.TryGet("a", out var a));
        Assert.Equal(body, Encoding.UTF8.GetString(a.Body));
        Assert.Equal(Future, a.ExpiresAt);
        Assert.Equal(DocumentFlags.Expires, a.Flags);
        Assert.True(reader.TryGet("b", out var b));
        Assert.Null(b.ExpiresAt);
        Assert.Equal(DocumentFlags.None, b.Flags);
        Assert.Equal("{\"n\":2}", Encoding.UTF8.GetString(b.Body));
        Assert.Equal(body.Length + 7, store.GetStats().DocumentBytes);
    }

    [Fact]
    public void The_record_layout_puts_the_expiry_ticks_between_the_collection_and_the_body()
    {
        var value = new byte[DocumentRecord.Size + 1 + 1 + 8 + 2];
        var header = new DocumentRecord { LastModifiedTicks = 5, Flags = (uint)DocumentFlags.Expires, IdLength = 1, CollectionLength = 1 };
        RecordIO.Write(value, in header);
        value[16] = (byte)'i';
        value[17] = (byte)'c';
        BitConverter.TryWriteBytes(value.AsSpan(18), 1234L);
        "{}"u8.CopyTo(value.AsSpan(26));

        var read = DocumentRecord.Read(value);
        Assert.Equal(1234L, read.ExpiresTicks(value));
        Assert.Equal("{}", Encoding.UTF8.GetString(read.Body(value)));
        Assert.True(read.IsExpired(value, 1234));
        Assert.False(read.IsExpired(value, 1233));
    }

    [Fact]
    public void An_expired_document_is_not_returned_by_get_or_collection_listing_before_it_is_deleted()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        store.Write(new WriteBatch().Put("gone", "C", Expiring("gone", Past)).Put("kept", "C", Expiring("kept", Future)).Put("plain", "C", "{}"));

        Assert.Null(store.Get("gone"));
        Assert.NotNull(store.Get("kept"));
        Assert.Equal(["kept", "plain"], store.GetCollectionPage("C").Select(d => d.Id));
        Assert.Equal(3, store.GetStats().DocumentCount); // still stored until the task deletes it
        Assert.Equal(3, store.GetChangesSince(0).Count); // the feed follows the store, not the clock
    }

    [Theory]
    [InlineData("\"tomorrow\"", "the string \"tomorrow\"")]
    [InlineData("12345", "a JSON Number")]
    [InlineData("{}", "a JSON StartObject")]
    public void A_bad_expiry_rejects_the_batch_naming_the_value(string value, string shown)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var ex = Assert.Throws<InvalidDocumentException>(() =>
            store.Write(new WriteBatch().Put("ok", "C", "{}").Put("bad", "C", $"{{\"@metadata\":{{\"@expires\":{value}}}}}")));

        Assert.Equal("bad", ex.DocumentId);
        Assert.Equal(1, ex.OperationIndex);
        Assert.Contains("@metadata.@expires is " + shown, ex.Message, StringComparison.Ordinal);
        Assert.Contains("ISO 8601", ex.Message, StringComparison.Ordinal);
        Assert.Null(store.Get("ok"));
    }

    [Fact]
    public void A_null_expiry_or_one_outside_metadata_is_no_expiry()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        store.Write(new WriteBatch()
            .Put("a", "C", "{\"@metadata\":{\"@expires\":null}}")
            .Put("b", "C", "{\"@expires\":\"2020-01-01T00:00:00Z\",\"x\":{\"@metadata\":{\"@expires\":\"2020-01-01T00:00:00Z\"}}}"));

        Assert.Null(store.Get("a")!.ExpiresAt);
        Assert.NotNull(store.Get("b"));
    }

    [Fact]
    public async Task The_task_deletes_what_is_due_in_expiry_order_in_bounded_batches_with_tombstones()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch();
        for (var i = 0; i < 25; i++)
        {
            // Written in reverse expiry order, so expiry order is not etag order.
            batch.Put($"d/{i}", i % 2 == 0 ? "Even" : "Odd", Expiring($"d/{i}", Past.AddMinutes(100 - i)));
        }

        batch.Put("future", "Even", Expiring("future", Future)).Put("plain", "Odd", "{}");
        store.Write(batch);
        Assert.Equal((26L, 25L), CountExpiring(store));

        var first = await store.DeleteExpiredAsync(DateTime.UtcNow, 10);

        Assert.Equal(10, first.Deleted);
        Assert.True(first.More);
        Assert.Equal(10, first.ByCollection.Values.Sum());
        for (var i = 24; i >= 15; i--)
        {
            var change = store.GetChangesSince(0, 100).Single(c => c.Id == $"d/{i}");
            Assert.True(change.IsDeleted);
        }

        Assert.NotNull(store.GetStats()); // counters stay consistent below
        var second = await store.DeleteExpiredAsync(DateTime.UtcNow, 10);
        var third = await store.DeleteExpiredAsync(DateTime.UtcNow, 10);
        var fourth = await store.DeleteExpiredAsync(DateTime.UtcNow, 10);

        Assert.Equal((10, true), (second.Deleted, second.More));
        Assert.Equal((5, false), (third.Deleted, third.More));
        Assert.Equal(0, fourth.Deleted);
        var stats = store.GetStats();
        Assert.Equal(2, stats.DocumentCount);
        Assert.Equal(25, stats.TombstoneCount);
        Assert.Equal((1L, 0L), CountExpiring(store));
        Assert.Equal(1, stats.Collections.Single(c => c.Name == "Odd").Count);
        Assert.NotNull(store.Get("future"));
        Assert.NotNull(store.Get("plain"));
    }

    [Fact]
    public async Task Overwriting_or_deleting_an_expiring_document_moves_or_removes_its_expiry_entry()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Expiring("a", Past)).Put("b", "C", Expiring("b", Past)));

        store.Write(new WriteBatch().Put("A", "C", Expiring("a", Future)).Delete("b"));

        Assert.Equal((1L, 0L), CountExpiring(store));
        Assert.Equal(0, (await store.DeleteExpiredAsync(DateTime.UtcNow, 100)).Deleted);
        Assert.NotNull(store.Get("a"));
        store.Write(new WriteBatch().Put("a", "C", "{}"));
        Assert.Equal((0L, 0L), CountExpiring(store));
    }

    [Fact]
    public async Task A_retention_rule_stamps_new_documents_by_arrival_or_by_field_and_the_earlier_expiry_wins()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        await store.SetExpirationRulesAsync([new ExpirationRule("Orders", TimeSpan.FromDays(30), "OrderedAt"), new ExpirationRule("Logs", TimeSpan.FromHours(1))]);

        var before = DateTime.UtcNow;
        store.Write(new WriteBatch()
            .Put("o/old", "orders", "{\"OrderedAt\":\"2020-01-01T00:00:00Z\"}")
            .Put("o/new", "Orders", "{\"OrderedAt\":\"2099-01-01T00:00:00+02:00\"}")
            .Put("o/own", "Orders", "{\"OrderedAt\":\"2099-01-01T00:00:00Z\",\"@metadata\":{\"@expires\":\"2099-01-02T00:00:00Z\"}}")
            .Put("o/nodate", "Orders", "{\"OrderedAt\":17}")
            .Put("l/1", "Logs", "{}")
            .Put("u/1", "Users", "{}"));

        Assert.Null(store.Get("o/old"));
        Assert.Equal(new DateTime(2099, 1, 30, 22, 0, 0, DateTimeKind.Utc), store.Get("o/new")!.ExpiresAt);
        Assert.Equal(new DateTime(2099, 1, 2, 0, 0, 0, DateTimeKind.Utc), store.Get("o/own")!.ExpiresAt);
        var byArrival = store.Get("o/nodate")!.ExpiresAt!.Value;
        Assert.InRange(byArrival, before.AddDays(30), DateTime.UtcNow.AddDays(30));
        Assert.InRange(store.Get("l/1")!.ExpiresAt!.Value, before.AddHours(1), DateTime.UtcNow.AddHours(1));
        Assert.Null(store.Get("u/1")!.ExpiresAt);
    }

    [Fact]
    public async Task A_rule_change_re_stamps_stored_documents_and_a_removed_rule_keeps_only_their_own_expiries()
    {
        using var dir = new TestDirectory();
        using (var store = dir.Open())
        {
            var batch = new WriteBatch();
            for (var i = 0; i < 30; i++)
            {
                batch.Put($"o/{i}", "Orders", i == 0 ? Expiring("o/0", Future) : $"{{\"At\":\"20{10 + i:00}-01-01T00:00:00Z\"}}");
            }

            store.Write(batch);
            Assert.Equal((1L, 0L), CountExpiring(store));

            Assert.True(await store.SetExpirationRulesAsync([new ExpirationRule("ORDERS", TimeSpan.FromDays(365), "At")]));
            Assert.True(Assert.Single(store.GetExpirationRules()).Restamping);
            var visited = 0;
            int step;
            while ((step = await store.RestampExpiriesAsync(7)) > 0)
            {
                visited += step;
            }

            Assert.Equal(30, visited);
            Assert.False(Assert.Single(store.GetExpirationRules()).Restamping);

            // 2011..2025 plus a year are past (o/1 .. o/15); o/0 has no field: a year from when it was written comes before its own expiry.
            Assert.Equal((30L, 15L), CountExpiring(store));
            Assert.Null(store.Get("o/1"));
            Assert.Equal(new DateTime(2040, 1, 1, 0, 0, 0, DateTimeKind.Utc), store.Get("o/29")!.ExpiresAt);
            Assert.True(store.Get("o/0")!.ExpiresAt < DateTime.UtcNow.AddDays(366));
            Assert.False(await store.SetExpirationRulesAsync([new ExpirationRule("orders", TimeSpan.FromDays(365), "At")]));
        }

        using (var store = dir.Open())
        {
            // The rules are the store's: they hold after a restart.
            Assert.Equal("ORDERS", Assert.Single(store.GetExpirationRules()).Rule.Collection);
            store.Write(new WriteBatch().Put("o/late", "Orders", "{\"At\":\"2000-01-01T00:00:00Z\"}"));
            Assert.Null(store.Get("o/late"));

            Assert.True(await store.SetExpirationRulesAsync([]));
            while (await store.RestampExpiriesAsync(100) > 0)
            {
            }

            Assert.Empty(store.GetExpirationRules());
            Assert.Equal((1L, 0L), CountExpiring(store));
            Assert.NotNull(store.Get("o/1"));
            Assert.Equal(Future, store.Get("o/0")!.ExpiresAt);
        }
    }

    [Fact]
    public async Task Dead_letters_stored_before_the_cutoff_are_deleted_oldest_first()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().AddDeadLetter("x"u8, new SourcePosition("s", 0, 1), "r").AddDeadLetter("y"u8, new SourcePosition("s", 0, 2), "r"));
        var cutoff = DateTime.UtcNow;
        Thread.Sleep(2); // the next dead letter must be stored after the cutoff
        store.Write(new WriteBatch().AddDeadLetter("z"u8, new SourcePosition("s", 0, 3), "r"));

        Assert.Equal(1, await store.DeleteDeadLettersBeforeAsync(cutoff, 1));
        Assert.Equal(1, await store.DeleteDeadLettersBeforeAsync(cutoff, 10));
        Assert.Equal(0, await store.DeleteDeadLettersBeforeAsync(cutoff, 10));
        Assert.Equal("z", Encoding.UTF8.GetString(Assert.Single(store.GetDeadLetters()).Raw.Span));
        Assert.Equal(1, store.GetStats().DeadLetterCount);
    }

    private static (long Expiring, long Due) CountExpiring(DocumentStore store)
    {
        using var reader = store.BeginRead();
        return reader.CountExpiring(DateTime.UtcNow);
    }
}
