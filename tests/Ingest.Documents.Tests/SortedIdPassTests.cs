using System.Globalization;
using System.Text;
using Ingest.Testing;

namespace Ingest.Documents.Tests;

/// <summary>
/// Batches without deletes set the id tree in one ordered pass: puts still take etags in batch
/// order, the last put of an id wins it, and the documents they replace (from earlier batches or
/// from earlier in the same batch) leave the feed, the collections and the counters.
/// </summary>
public sealed class SortedIdPassTests
{
    private static string Body(string id, int n) => $"{{\"id\":\"{id}\",\"n\":{n}}}";

    [Fact]
    public void Repeated_ids_in_one_batch_keep_the_last_put_and_etags_follow_batch_order()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("old", "A", Body("old", 0)).Put("kept", "A", Body("kept", 0)));

        var result = store.Write(new WriteBatch()
            .Put("z", "A", Body("z", 1))          // etag 3
            .Put("OLD", "B", Body("old", 2))      // etag 4, superseded by etag 7
            .Put("m", "A", Body("m", 3))          // etag 5
            .SetSourcePosition("kafka:t", 0, 10)
            .Put("M", "B", Body("m", 4))          // etag 6, replaces etag 5 of the same batch
            .Put("Old", "A", Body("old", 5)));    // etag 7, replaces etag 1

        Assert.Equal(3, result.FirstEtag);
        Assert.Equal(7, result.LastEtag);
        Assert.Equal(5, store.GetSourcePosition("kafka:t", 0)!.Value.Etag); // the etag taken when the position was set
        Assert.Equal(7, store.Get("old")!.Etag);
        Assert.Equal("Old", store.Get("old")!.Id);
        Assert.Equal(Body("old", 5), Encoding.UTF8.GetString(store.Get("OLD")!.Body.Span));
        Assert.Equal("B", store.Get("m")!.Collection);
        Assert.Equal(6, store.Get("m")!.Etag);
        Assert.Equal(2, store.Get("kept")!.Etag);
        Assert.Equal([2L, 3, 6, 7], store.GetChangesSince(0).Select(c => c.Etag));

        var stats = store.GetStats();
        Assert.Equal(4, stats.DocumentCount);
        Assert.Equal(Body("kept", 0).Length + Body("z", 1).Length + Body("m", 4).Length + Body("old", 5).Length, stats.DocumentBytes);
        var a = stats.Collections.Single(c => c.Name == "A");
        var b = stats.Collections.Single(c => c.Name == "B");
        Assert.Equal((3L, 7L), (a.Count, a.LastEtag));
        Assert.Equal((1L, 6L), (b.Count, b.LastEtag)); // etag 4 went to B and was replaced within the batch
        Assert.Equal([2L, 3, 7], store.GetCollectionPage("a").Select(d => d.Etag));
        Assert.Equal([6L], store.GetCollectionPage("b").Select(d => d.Etag));
        Assert.True(store.Verify().IsClean);
    }

    [Fact]
    public void A_large_shuffled_batch_matches_the_same_puts_written_one_at_a_time()
    {
        using var sortedDir = new TestDirectory();
        using var oneByOneDir = new TestDirectory();
        using var sorted = sortedDir.Open();
        using var oneByOne = oneByOneDir.Open();
        var rnd = new Random(12);
        for (var round = 0; round < 4; round++)
        {
            var batch = new WriteBatch();
            for (var i = 0; i < 3_000; i++)
            {
                // Ids from a space of 5,000: later rounds replace documents, some ids repeat within a batch.
                var id = string.Create(CultureInfo.InvariantCulture, $"Orders/{rnd.Next(5_000):D7}-{(rnd.Next(2) == 0 ? 'A' : 'a')}");
                var collection = rnd.Next(3) == 0 ? "Archive" : "Orders";
                var body = Body(id, rnd.Next(100_000));
                batch.Put(id, collection, body);
                oneByOne.Write(new WriteBatch().Put(id, collection, body));
            }

            sorted.Write(batch);
        }

        Assert.Equal(oneByOne.LastEtag, sorted.LastEtag);
        var expected = oneByOne.GetChangesSince(0, int.MaxValue);
        var actual = sorted.GetChangesSince(0, int.MaxValue);
        Assert.Equal(expected.Select(d => (d.Etag, d.Id, d.Collection)), actual.Select(d => (d.Etag, d.Id, d.Collection)));
        Assert.Equal(expected.Select(d => Encoding.UTF8.GetString(d.Body.Span)), actual.Select(d => Encoding.UTF8.GetString(d.Body.Span)));
        var expectedStats = oneByOne.GetStats();
        var actualStats = sorted.GetStats();
        Assert.Equal((expectedStats.DocumentCount, expectedStats.DocumentBytes), (actualStats.DocumentCount, actualStats.DocumentBytes));
        Assert.Equal(expectedStats.Collections.OrderBy(c => c.Name, StringComparer.Ordinal), actualStats.Collections.OrderBy(c => c.Name, StringComparer.Ordinal));
        foreach (var doc in expected)
        {
            Assert.Equal(doc.Etag, sorted.Get(doc.Id.ToUpperInvariant())!.Etag);
        }

        Assert.True(sorted.Verify().IsClean);
    }
}
