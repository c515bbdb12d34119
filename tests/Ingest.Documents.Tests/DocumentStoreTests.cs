using System.Text;
using Ingest.Testing;

namespace Ingest.Documents.Tests;

public sealed class DocumentStoreTests
{
    private static string Body(string id, int n = 0) => $"{{\"id\":\"{id}\",\"n\":{n}}}";

    [Fact]
    public void Put_then_get_returns_the_document_with_its_original_casing_and_etag()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var result = store.Write(new WriteBatch().Put("Orders/1-A", "Orders", Body("1")).Put("orders/2", "Orders", Body("2")));

        Assert.Equal(1, result.FirstEtag);
        Assert.Equal(2, result.LastEtag);
        var doc = store.Get("ORDERS/1-a");
        Assert.NotNull(doc);
        Assert.Equal("Orders/1-A", doc.Id);
        Assert.Equal("Orders", doc.Collection);
        Assert.Equal(1, doc.Etag);
        Assert.Equal(Body("1"), Encoding.UTF8.GetString(doc.Body.Span));
        Assert.Null(store.Get("orders/3"));
        Assert.Equal(2, store.LastEtag);
    }

    [Fact]
    public void Overwrite_takes_a_new_etag_and_keeps_the_newest_casing()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("users/1", "Users", Body("a")));

        store.Write(new WriteBatch().Put("USERS/1", "Users", Body("b")));

        var doc = store.Get("users/1")!;
        Assert.Equal("USERS/1", doc.Id);
        Assert.Equal(2, doc.Etag);
        var stats = store.GetStats();
        Assert.Equal(1, stats.DocumentCount);
        Assert.Equal(Body("b").Length, stats.DocumentBytes);
        var changes = store.GetChangesSince(0);
        Assert.Single(changes);
        Assert.Equal(2, changes[0].Etag);
    }

    [Fact]
    public void Delete_leaves_a_tombstone_in_the_changes_feed_and_missing_ids_take_no_etag()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Body("a")).Put("b", "C", Body("b")));

        var result = store.Write(new WriteBatch().Delete("A").Delete("missing"));

        Assert.Equal(3, result.FirstEtag);
        Assert.Equal(3, result.LastEtag);
        Assert.Null(store.Get("a"));
        var changes = store.GetChangesSince(0);
        Assert.Equal([2L, 3L], changes.Select(c => c.Etag));
        Assert.False(changes[0].IsDeleted);
        Assert.True(changes[1].IsDeleted);
        Assert.Equal("a", changes[1].Id);
        Assert.Equal("C", changes[1].Collection);
        Assert.True(changes[1].Body.IsEmpty);
        Assert.Equal(1, store.GetStats().TombstoneCount);
        Assert.Empty(store.GetChangesSince(3));
        Assert.Single(store.GetChangesSince(2));
    }

    [Fact]
    public void Collections_are_paged_in_etag_order_whatever_the_casing_of_their_name()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch();
        for (var i = 0; i < 10; i++)
        {
            batch.Put($"o/{i}", i % 2 == 0 ? "Orders" : "Users", Body(i.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        }

        store.Write(batch);
        store.Write(new WriteBatch().Put("o/0", "orders", Body("again")).Delete("o/2"));

        var page1 = store.GetCollectionPage("ORDERS", 0, 2);
        var page2 = store.GetCollectionPage("Orders", page1[^1].Etag, 10);
        Assert.Equal(["o/4", "o/6"], page1.Select(d => d.Id));
        Assert.Equal(["o/8", "o/0"], page2.Select(d => d.Id));
        Assert.Empty(store.GetCollectionPage("nope"));

        var stats = store.GetStats();
        var orders = Assert.Single(stats.Collections, c => c.Name == "Orders");
        Assert.Equal(4, orders.Count);
        Assert.Equal(12, orders.LastEtag); // the delete of o/2
        Assert.Equal(10, stats.Collections.Single(c => c.Name == "Users").LastEtag);
        Assert.Equal(5, Assert.Single(stats.Collections, c => c.Name == "Users").Count);
        Assert.Equal(9, stats.DocumentCount);
        Assert.True(stats.StorageBytes > 0);
    }

    [Fact]
    public void A_document_moving_to_another_collection_leaves_the_old_one()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("x", "A", Body("x")));

        store.Write(new WriteBatch().Put("X", "B", Body("x")));

        Assert.Empty(store.GetCollectionPage("A"));
        Assert.Single(store.GetCollectionPage("B"));
        var stats = store.GetStats();
        Assert.Equal(0, stats.Collections.Single(c => c.Name == "A").Count);
        Assert.Equal(1, stats.Collections.Single(c => c.Name == "B").Count);
    }

    public static TheoryData<string, string, string, string> InvalidPuts => new()
    {
        { "", "C", "{}", "the id is empty" },
        { new string('x', 513), "C", "{}", "the id is 513 UTF-8 bytes; the limit is 512" },
        { new string('é', 257), "C", "{}", "the id is 514 UTF-8 bytes" },
        { "doc/1", "", "{}", "the collection name is empty" },
        { "doc/1", new string('c', 129), "{}", "the collection name is 129 UTF-8 bytes" },
        { "doc/1", " \t ", "{}", "the collection name is only whitespace" },
        { "doc/1", "Bell\u0007", "{}", "the collection name has the character U+0007 at position 4" },
        { "doc/1", "Tab\there", "{}", "the collection name has the character U+0009 at position 3" },
        { "doc/1", "Line\r\nBreak", "{}", "the collection name has the character U+000D at position 4" },
        { "doc/1", "Nel\u0085", "{}", "the collection name has the character U+0085 at position 3" },
        { "doc/1", "Para\u2029", "{}", "the collection name has the character U+2029 at position 4" },
        { "doc/1", "\u202Eevil", "{}", "the collection name has the character U+202E at position 0" },
        { "doc/1", "C", "{\"a\":", "the body is not valid JSON" },
        { "doc/1", "C", "{} {}", "the body is not valid JSON" },
        { "doc/1", "C", "[1,2]", "the body is a JSON StartArray; a document is a JSON object" },
        { "doc/1", "C", "", "the body is empty" },
        { "doc/1", "C", "{\"a\":'x'}", "the body is not valid JSON" },
    };

    [Theory]
    [MemberData(nameof(InvalidPuts))]
    public void An_invalid_put_rejects_the_whole_batch_with_a_message_naming_the_problem_and_id(string id, string collection, string json, string expected)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch()
            .Put("good/1", "C", Body("g"))
            .SetSourcePosition("kafka:t", 0, 10)
            .Put(id, collection, json);

        var ex = Assert.Throws<InvalidDocumentException>(() => store.Write(batch));

        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
        Assert.Equal(2, ex.OperationIndex);
        if (id.Length is > 0 and < 200)
        {
            Assert.Contains(id, ex.Message, StringComparison.Ordinal);
            Assert.Equal(id, ex.DocumentId);
        }

        Assert.Null(store.Get("good/1"));
        Assert.Null(store.GetSourcePosition("kafka:t", 0));
        Assert.Equal(0, store.LastEtag);
        Assert.Equal(0, store.BatchCount);
    }

    [Theory]
    [MemberData(nameof(InvalidUtf8Bodies.Names), MemberType = typeof(InvalidUtf8Bodies))]
    public void A_body_that_is_not_valid_utf8_rejects_the_batch_naming_the_byte_offset(string name)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch().Put("good/1", "C", Body("g")).Put("bad/1", "C", InvalidUtf8Bodies.Body(name));

        var ex = Assert.Throws<InvalidDocumentException>(() => store.Write(batch));

        Assert.Equal(1, ex.OperationIndex);
        Assert.Equal("bad/1", ex.DocumentId);
        Assert.Equal($"the body is not valid UTF-8 at byte {InvalidUtf8Bodies.Offset(name)}.", ex.Problem);
        Assert.Null(store.Get("good/1"));
    }

    [Theory]
    [InlineData("Café")]
    [InlineData("注文")]
    [InlineData("Orders 2026")]
    [InlineData("👩‍💻 team")]
    public void Collection_names_with_non_ascii_letters_symbols_and_inner_spaces_are_accepted(string collection)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        store.Write(new WriteBatch().Put("doc/1", collection, Body("1")));

        Assert.Equal(collection, store.Get("doc/1")!.Collection);
        Assert.Single(store.GetCollectionPage(collection));
    }

    [Fact]
    public void An_id_with_a_lone_surrogate_is_rejected()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        var ex = Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Put("bad\uD800id", "C", "{}")));

        Assert.Contains("lone UTF-16 surrogate", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_body_over_the_configured_maximum_is_rejected()
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options();
        options.MaxBodyBytes = 1000;
        using var store = DocumentStore.Open(dir.Path, options);
        var json = "{\"a\":\"" + new string('x', 1000) + "\"}";

        var ex = Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Put("big/1", "C", json)));

        Assert.Contains("document 'big/1'", ex.Message, StringComparison.Ordinal);
        Assert.Contains("the body is 1008 bytes; the limit is 1000", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Large_bodies_up_to_the_maximum_round_trip()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var json = "{\"a\":\"" + new string('x', 3 * 1024 * 1024) + "\"}";

        store.Write(new WriteBatch().Put("big/1", "C", json));

        Assert.Equal(json, Encoding.UTF8.GetString(store.Get("BIG/1")!.Body.Span));
    }

    [Fact]
    public void Source_positions_are_stored_per_source_and_partition_with_the_batch()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Body("a")).SetSourcePosition("kafka:orders", 1, 100).SetSourcePosition("kafka:orders", 0, 50));
        store.Write(new WriteBatch().SetSourcePosition("kafka:orders", 1, 120).SetSourcePosition("kafka:orders-x", 0, 7).SetSourcePosition("kafka:orders", -1, 3));

        var positions = store.GetSourcePositions("kafka:orders");

        Assert.Equal([-1, 0, 1], positions.Select(p => p.Position.Partition));
        Assert.Equal([3L, 50L, 120L], positions.Select(p => p.Position.NextOffset));
        Assert.Equal(1, positions[1].Etag);
        Assert.Equal(7, store.GetSourcePosition("kafka:orders-x", 0)!.Value.Position.NextOffset);
        Assert.Null(store.GetSourcePosition("kafka:orders", 5));
        Assert.Empty(store.GetSourcePositions("kafka"));
    }

    [Fact]
    public async Task Dead_letters_are_listed_fetched_and_deleted()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        byte[] raw = [0xff, 0x00, 0x7b];
        store.Write(new WriteBatch()
            .AddDeadLetter(raw, new SourcePosition("kafka:orders", 2, 41), "body is not valid JSON")
            .AddDeadLetter("{}"u8, new SourcePosition("rabbit:q", 0, 9), "no id")
            .SetSourcePosition("kafka:orders", 2, 42));

        var all = store.GetDeadLetters();
        Assert.Equal(2, all.Count);
        Assert.Equal(raw, all[0].Raw.ToArray());
        Assert.Equal(new SourcePosition("kafka:orders", 2, 41), all[0].Position);
        Assert.Equal("body is not valid JSON", all[0].Reason);
        Assert.Equal("no id", store.GetDeadLetter(all[1].Id)!.Reason);
        Assert.Single(store.GetDeadLetters(all[0].Id));

        Assert.True(await store.DeleteDeadLetterAsync(all[0].Id));
        Assert.False(await store.DeleteDeadLetterAsync(all[0].Id));
        Assert.Null(store.GetDeadLetter(all[0].Id));
        Assert.Equal(1, store.GetStats().DeadLetterCount);
    }

    [Fact]
    public async Task WaitForChanges_completes_when_a_later_etag_commits()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Body("a")));

        Assert.Equal(1, await store.WaitForChangesAsync(0));
        var waiting = store.WaitForChangesAsync(1);
        await Task.Delay(50);
        Assert.False(waiting.IsCompleted);
        store.Write(new WriteBatch().SetSourcePosition("s", 0, 1));
        await Task.Delay(50);
        Assert.False(waiting.IsCompleted, "a batch without puts or deletes takes no etag");

        await store.WriteAsync(new WriteBatch().Put("b", "C", Body("b")));

        Assert.Equal(2, await waiting.WaitAsync(TimeSpan.FromSeconds(10)));
        using var cts = new CancellationTokenSource(50);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => store.WaitForChangesAsync(2, cts.Token));
    }

    [Fact]
    public async Task A_consumer_waiting_for_changes_sees_every_write_in_etag_order()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        const int Total = 500;
        var consumer = Task.Run(async () =>
        {
            long last = 0;
            var seen = new List<long>();
            while (seen.Count < Total)
            {
                await store.WaitForChangesAsync(last).WaitAsync(TimeSpan.FromSeconds(30));
                using var reader = store.BeginRead();
                foreach (var change in reader.GetChangesSince(last))
                {
                    seen.Add(change.Etag);
                    last = change.Etag;
                }
            }

            return seen;
        });

        for (var i = 0; i < Total; i++)
        {
            await store.WriteAsync(new WriteBatch().Put($"d/{i}", "C", "{}"));
        }

        Assert.Equal(Enumerable.Range(1, Total).Select(e => (long)e), await consumer);
    }

    [Fact]
    public void Everything_survives_reopen()
    {
        using var dir = new TestDirectory();
        using (var store = dir.Open())
        {
            store.Write(new WriteBatch().Put("a", "C", Body("a")).Put("b", "C", Body("b")).SetSourcePosition("s", 0, 5));
            store.Write(new WriteBatch().Delete("a").AddDeadLetter("x"u8, new SourcePosition("s", 0, 4), "r"));
        }

        using (var store = dir.Open())
        {
            Assert.Equal(3, store.LastEtag);
            Assert.Null(store.Get("a"));
            Assert.Equal(2, store.Get("B")!.Etag);
            Assert.Equal(5, store.GetSourcePosition("s", 0)!.Value.Position.NextOffset);
            Assert.Single(store.GetDeadLetters());
            var stats = store.GetStats();
            Assert.Equal(1, stats.DocumentCount);
            Assert.Equal(1, stats.TombstoneCount);
            Assert.Equal(4, store.Write(new WriteBatch().Put("c", "C", Body("c"))).FirstEtag);
        }
    }

    [Fact]
    public void A_batch_can_be_cleared_and_reused_after_its_write_completes()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var batch = new WriteBatch().Put("a", "C", Body("a"));

        store.Write(batch);
        batch.Clear();
        batch.Put("b", "C", Body("b"));
        store.Write(batch);

        Assert.NotNull(store.Get("a"));
        Assert.Equal(2, store.Get("b")!.Etag);
    }

    [Fact]
    public void Reads_see_a_stable_snapshot()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Body("a", 1)));

        using var reader = store.BeginRead();
        store.Write(new WriteBatch().Put("a", "C", Body("a", 2)).Put("b", "C", Body("b")));

        Assert.True(reader.TryGet("A", out var view));
        Assert.Equal(Body("a", 1), Encoding.UTF8.GetString(view.Body));
        Assert.False(reader.TryGet("b", out _));
        Assert.Equal(1, reader.LastEtag);
        Assert.Equal(3, store.LastEtag);
    }

    [Fact]
    public void A_view_used_after_its_reader_is_disposed_throws_instead_of_reading_freed_pages()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("a", "C", Body("a")));
        var reader = store.BeginRead();
        Assert.True(reader.TryGet("a", out var view));
        var etag = view.Etag;

        reader.Dispose();

        Assert.Equal(1, etag);
        var thrown = false;
        try
        {
            _ = view.Body.Length;
        }
        catch (ObjectDisposedException)
        {
            thrown = true;
        }

        Assert.True(thrown);
        Assert.Throws<ObjectDisposedException>(() => reader.TryGet("a", out _));
    }

    [Fact]
    public void A_second_open_of_the_same_directory_fails()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();

        Assert.Throws<IOException>(() => dir.Open());
    }
}
