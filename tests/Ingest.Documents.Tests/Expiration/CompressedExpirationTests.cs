using Ingest.Documents.Expiration;
using Ingest.Testing;

namespace Ingest.Documents.Tests.Expiration;

/// <summary>Expiration and compression together: expiries read the JSON of compressed bodies, and deletes drop both.</summary>
public sealed class CompressedExpirationTests
{
    [Fact]
    public async Task Rules_by_field_re_stamp_compressed_documents_and_the_task_deletes_them_with_their_dictionary_references()
    {
        using var dir = new TestDirectory();
        var options = TestDirectory.Options();
        options.Compression = true;
        options.DictionaryTrainingDocuments = 50;
        using var store = DocumentStore.Open(dir.Path, options);
        for (var round = 0; round < 4; round++)
        {
            var batch = new WriteBatch();
            for (var i = round * 50; i < (round + 1) * 50; i++)
            {
                var year = i % 2 == 0 ? 2001 : 2090;
                batch.Put($"o/{i}", "Orders", $$"""{"At":"{{year}}-01-01T00:00:00Z","Customer":"customer number {{i % 7}}","Notes":"the same long note about an order, repeated so that it compresses well {{i}}"}""");
            }

            store.Write(batch);
        }

        using (var reader = store.BeginRead())
        {
            Assert.True(reader.VerifyDocuments().CompressedDocuments > 100, "the documents should be stored compressed");
        }

        Assert.True(await store.SetExpirationRulesAsync([new ExpirationRule("Orders", TimeSpan.FromDays(365), "At")]));
        while (await store.RestampExpiriesAsync(37) > 0)
        {
        }

        // Expired at once by the rule: the even ones (2001), read back in full for the others.
        Assert.Null(store.Get("o/0"));
        var kept = store.Get("o/1")!;
        Assert.Equal(new DateTime(2091, 1, 1, 0, 0, 0, DateTimeKind.Utc), kept.ExpiresAt);
        Assert.Contains("repeated so that it compresses well 1\"", System.Text.Encoding.UTF8.GetString(kept.Body.Span), StringComparison.Ordinal);

        long deleted = 0;
        ExpirationBatchResult result;
        do
        {
            result = await store.DeleteExpiredAsync(DateTime.UtcNow, 30);
            deleted += result.Deleted;
        }
        while (result.More);

        Assert.Equal(100, deleted);
        Assert.Equal(100, store.GetStats().DocumentCount);
        using (var reader = store.BeginRead())
        {
            var report = reader.VerifyDocuments();
            Assert.True(report.IsClean, string.Join("; ", report.Problems));
        }
    }
}
