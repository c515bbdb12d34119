using System.Globalization;
using System.Text;

namespace Ingest.Documents.Tests;

/// <summary>A store written by the code before compression (Fixtures/StoreBeforeCompression) opens and reads as before, and takes compressed writes beside its raw ones.</summary>
public sealed class StoreBeforeCompressionTests
{
    private static string Order(int n) => string.Create(
        CultureInfo.InvariantCulture, $"{{\"customer\":\"customers/{n % 17}\",\"total\":{n * 3.5},\"note\":\"Ünïcode ✓ order number {n} of the fixture\"}}");

    [Fact]
    public void The_old_store_reads_as_before_and_mixes_raw_and_compressed_documents_after_new_writes()
    {
        using var dir = new TestDirectory();
        var fixture = Path.Combine(AppContext.BaseDirectory, "Fixtures", "StoreBeforeCompression");
        foreach (var file in new[] { "data.ingest", "journal.0000000001" })
        {
            File.Copy(Path.Combine(fixture, file), Path.Combine(dir.Path, file));
        }

        var options = TestDirectory.Options();
        options.Compression = true;
        options.DictionaryTrainingDocuments = 100;
        using var store = DocumentStore.Open(dir.Path, options);
        Assert.Equal(350, store.LastEtag);
        using (var reader = store.BeginRead())
        {
            var stats = reader.GetStats();
            Assert.Equal(290, stats.DocumentCount);
            Assert.Equal(30, stats.TombstoneCount);
            var orders = stats.Collections.Single(c => c.Name == "Orders");
            Assert.Equal(orders.BodyBytes, orders.StoredBodyBytes); // all raw
            Assert.Equal(0, orders.DictionaryId);
            for (var n = 0; n < 300; n++)
            {
                var found = reader.TryGet($"orders/{n}", out var view);
                Assert.Equal(n % 10 != 0, found);
                if (found)
                {
                    Assert.Equal(DocumentFlags.None, view.Flags);
                    Assert.Equal(Order(n), Encoding.UTF8.GetString(view.Body));
                }
            }

            Assert.Equal("{\"name\":\"user 7\"}", Encoding.UTF8.GetString(reader.Get("users/7")!.Body.Span));
            Assert.Equal(1234, reader.GetSourcePosition("kafka:orders", 0)!.Value.Position.NextOffset);
            Assert.Empty(reader.VerifyDocuments().Problems);
        }

        // New writes compress (and train a dictionary from the old raw documents too); old ones are replaced and deleted.
        var batch = new WriteBatch();
        for (var n = 300; n < 420; n++)
        {
            batch.Put($"orders/{n}", "Orders", Order(n));
        }

        for (var n = 1; n < 100; n += 2)
        {
            batch.Put($"orders/{n}", "Orders", Order(n + 1000));
        }

        for (var n = 2; n < 100; n += 10)
        {
            batch.Delete($"orders/{n}");
        }

        store.Write(batch);

        // That batch was compressed (where ~100-byte orders pay without a dictionary: they do not) before the
        // dictionary its 100th put trained existed; the next one uses it.
        batch = new WriteBatch();
        for (var n = 420; n < 470; n++)
        {
            batch.Put($"orders/{n}", "Orders", Order(n));
        }

        store.Write(batch);
        using (var reader = store.BeginRead())
        {
            var orders = reader.GetStats().Collections.Single(c => c.Name == "Orders");
            Assert.NotEqual(0, orders.DictionaryId);
            Assert.True(orders.StoredBodyBytes < orders.BodyBytes);
            Assert.True(reader.TryGet("orders/3", out var replaced));
            Assert.Equal(Order(1003), Encoding.UTF8.GetString(replaced.Body));
            Assert.True(reader.TryGet("orders/251", out var old));
            Assert.Equal(DocumentFlags.None, old.Flags);
            Assert.Equal(Order(251), Encoding.UTF8.GetString(old.Body));
            Assert.True(reader.TryGet("orders/469", out var fresh));
            Assert.Equal(DocumentFlags.Compressed, fresh.Flags);
            Assert.Equal(Order(469), Encoding.UTF8.GetString(fresh.Body));
            Assert.Empty(reader.VerifyDocuments().Problems);
        }
    }
}
