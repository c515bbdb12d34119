using System.Text;
using Ingest.Testing;

namespace Ingest.Documents.Tests.Positions;

/// <summary>Each document version and delete records the log position that produced it; readers and the changes feed see it.</summary>
public sealed class LogPositionTests
{
    private static readonly LogPosition OrdersAt7 = new("orders", 2, 7);

    private static string Order(int n) =>
        $$"""{"customer":"customers/{{n % 5}}","note":"the same long note about an order, repeated so that it compresses well","n":{{n}}}""";

    [Fact]
    public void Positions_of_puts_and_deletes_survive_reopening_and_documents_without_one_read_null()
    {
        using var dir = new TestDirectory();
        using (var store = dir.Open())
        {
            store.Write(new WriteBatch()
                .Put("orders/1", "Orders", Encoding.UTF8.GetBytes(Order(1)), OrdersAt7)
                .Put("orders/2", "Orders", Encoding.UTF8.GetBytes(Order(2)), new LogPosition("ingest-cluster", 0, long.MaxValue - 1))
                .Put("orders/3", "Orders", Order(3))
                .Put("orders/4", "Orders", Order(4)));
            store.Write(new WriteBatch()
                .Delete("orders/3", new LogPosition("orders", 0, 12))
                .Delete("orders/4"));
        }

        using (var store = dir.Open())
        using (var reader = store.BeginRead())
        {
            Assert.True(reader.TryGet("orders/1", out var one));
            Assert.Equal(OrdersAt7, one.Position);
            Assert.Equal(DocumentFlags.Positioned, one.Flags);
            Assert.Equal(Order(1), Encoding.UTF8.GetString(one.Body));
            Assert.Equal(new LogPosition("ingest-cluster", 0, long.MaxValue - 1), store.Get("orders/2")!.Position);

            var changes = new List<Document>();
            foreach (var change in reader.GetChangesSince(0))
            {
                changes.Add(change.ToDocument());
            }

            Assert.Equal(["orders/1", "orders/2", "orders/3", "orders/4"], changes.Select(c => c.Id));
            var deleted = changes.Single(c => c.Id == "orders/3");
            Assert.True(deleted.IsDeleted);
            Assert.Equal(new LogPosition("orders", 0, 12), deleted.Position);
            Assert.Null(deleted.ExpiresAt);
            var plainDelete = changes.Single(c => c.Id == "orders/4");
            Assert.Null(plainDelete.Position);
            Assert.Equal(DocumentFlags.Deleted, plainDelete.Flags);
        }

        // A topic first used after reopening gets a number of its own; the earlier ones keep theirs.
        using (var store = dir.Open())
        {
            store.Write(new WriteBatch().Put("orders/5", "Orders", Encoding.UTF8.GetBytes(Order(5)), new LogPosition("returns", 1, 0)));
            Assert.Equal(new LogPosition("returns", 1, 0), store.Get("orders/5")!.Position);
            Assert.Equal(OrdersAt7, store.Get("orders/1")!.Position);
            store.Write(new WriteBatch().Put("orders/1", "Orders", Encoding.UTF8.GetBytes(Order(11)), null));
            Assert.Null(store.Get("orders/1")!.Position);
        }
    }

    [Fact]
    public void Compressed_expiring_and_positioned_records_read_every_field_back()
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options();
        options.Compression = true;
        options.DictionaryTrainingDocuments = 50;
        using var store = DocumentStore.Open(dir.Path, options);
        var expires = new DateTime(2090, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        for (var round = 0; round < 3; round++)
        {
            var batch = new WriteBatch();
            for (var i = round * 50; i < (round + 1) * 50; i++)
            {
                var json = i % 2 == 0
                    ? Order(i)
                    : $$"""{"@metadata":{"@expires":"2090-01-01T00:00:00Z"},"note":"the same long note about an order, repeated so that it compresses well","n":{{i}}}""";
                batch.Put($"o/{i}", "Orders", Encoding.UTF8.GetBytes(json), i % 3 == 0 ? null : new LogPosition("orders", i % 4, i));
            }

            store.Write(batch);
        }

        using var reader = store.BeginRead();
        var report = reader.VerifyDocuments();
        Assert.True(report.CompressedDocuments > 50, "the documents should be stored compressed");
        Assert.True(report.IsClean, string.Join("; ", report.Problems));
        var combinations = new HashSet<DocumentFlags>();
        for (var i = 0; i < 150; i++)
        {
            Assert.True(reader.TryGet($"o/{i}", out var view));
            combinations.Add(view.Flags);
            Assert.Equal(i % 3 == 0 ? null : new LogPosition("orders", i % 4, i), view.Position);
            Assert.Equal(i % 2 == 0 ? null : expires, view.ExpiresAt);
            Assert.Contains($"\"n\":{i}}}", Encoding.UTF8.GetString(view.Body), StringComparison.Ordinal);
        }

        Assert.Contains(DocumentFlags.Compressed | DocumentFlags.Expires | DocumentFlags.Positioned, combinations);
        Assert.Contains(DocumentFlags.Compressed | DocumentFlags.Positioned, combinations);
        Assert.Contains(DocumentFlags.Compressed | DocumentFlags.Expires, combinations);
    }

    [Fact]
    public async Task Re_stamping_an_expiry_keeps_the_position_and_an_expired_delete_keeps_the_expired_versions()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch()
            .Put("o/old", "Orders", Encoding.UTF8.GetBytes("""{"At":"2001-01-01T00:00:00Z"}"""), new LogPosition("orders", 1, 40))
            .Put("o/new", "Orders", Encoding.UTF8.GetBytes("""{"At":"2090-01-01T00:00:00Z"}"""), new LogPosition("orders", 1, 41)));
        Assert.True(await store.SetExpirationRulesAsync([new Ingest.Documents.Expiration.ExpirationRule("Orders", TimeSpan.FromDays(365), "At")]));
        while (await store.RestampExpiriesAsync(10) > 0)
        {
        }

        var kept = store.Get("o/new")!;
        Assert.Equal(new DateTime(2091, 1, 1, 0, 0, 0, DateTimeKind.Utc), kept.ExpiresAt);
        Assert.Equal(new LogPosition("orders", 1, 41), kept.Position);
        Assert.Equal("""{"At":"2090-01-01T00:00:00Z"}""", Encoding.UTF8.GetString(kept.Body.Span));

        Assert.Equal(1, (await store.DeleteExpiredAsync(DateTime.UtcNow, 10)).Deleted);
        var tombstone = store.GetChangesSince(0).Single(c => c.Id == "o/old");
        Assert.True(tombstone.IsDeleted);
        Assert.Equal(new LogPosition("orders", 1, 40), tombstone.Position);
        Assert.Equal(new DateTime(2002, 1, 1, 0, 0, 0, DateTimeKind.Utc), tombstone.ExpiresAt);
        Assert.True(tombstone.Body.IsEmpty);
    }

    [Fact]
    public void A_position_with_a_negative_offset_or_an_empty_topic_is_refused()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Put("a", "A", "{}"u8, new LogPosition("t", 0, -1))));
        Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Delete("a", new LogPosition("", 0, 1))));
        Assert.Null(store.Get("a"));
    }
}
