using System.Net;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Cluster;

/// <summary>The digest depends on a collection's documents only: not on write order, etags, compression or other collections.</summary>
public sealed class ClusterDigestTests
{
    private static string Order(int n) =>
        $$"""{"Customer":"customers/{{n % 7}}","Note":"the same long note about an order, repeated so that it compresses well","N":{{n}}}""";

    [Fact]
    public void Stores_with_the_same_documents_give_the_same_digest_whatever_the_order_compression_and_history_of_their_writes()
    {
        using var directory = new TestDirectory();
        using var plain = DocumentStore.Open(directory.Combine("plain"));
        var compressing = new DocumentStoreOptions { Compression = true, DictionaryTrainingDocuments = 50 };
        using var compressed = DocumentStore.Open(directory.Combine("compressed"), compressing);

        // In id order, at once, without positions.
        var batch = new WriteBatch();
        for (var n = 0; n < 200; n++)
        {
            batch.Put($"orders/{n}", "Orders", Order(n));
        }

        plain.Write(batch);

        // Backwards, in small batches, with positions, other collections, replaced versions and deletes in between.
        for (var n = 199; n >= 0; n -= 10)
        {
            batch = new WriteBatch();
            for (var k = n; k > n - 10; k--)
            {
                batch.Put($"orders/{k}", "Orders", System.Text.Encoding.UTF8.GetBytes(k % 3 == 0 ? "{\"draft\":true}" : Order(k)), new LogPosition("orders", k % 3, k));
                batch.Put($"customers/{k}", "Customers", "{\"Name\":\"c\"}");
            }

            compressed.Write(batch);
        }

        batch = new WriteBatch();
        for (var n = 0; n < 200; n += 3)
        {
            batch.Put($"orders/{n}", "Orders", Order(n));
        }

        compressed.Write(batch.Put("orders/extra", "Orders", Order(1000)));
        compressed.Write(new WriteBatch().Delete("orders/extra"));

        using var plainReader = plain.BeginRead();
        using var compressedReader = compressed.BeginRead();
        Assert.True(compressedReader.VerifyDocuments().CompressedDocuments > 0, "the second store should hold compressed bodies");
        Assert.NotEqual(plain.LastEtag, compressed.LastEtag);
        var expected = ClusterDigestEndpoints.Digest(plainReader, "Orders");
        Assert.Equal(200, expected.Documents);
        Assert.Equal(expected, ClusterDigestEndpoints.Digest(compressedReader, "orders"));
    }

    [Fact]
    public void A_changed_body_a_missing_document_or_a_renamed_id_changes_the_digest()
    {
        using var directory = new TestDirectory();
        using var store = DocumentStore.Open(directory.Combine("store"));
        store.Write(new WriteBatch().Put("orders/1", "Orders", Order(1)).Put("orders/2", "Orders", Order(2)));
        var digests = new List<string> { Digest(store) };

        store.Write(new WriteBatch().Put("orders/2", "Orders", Order(3)));
        digests.Add(Digest(store));
        store.Write(new WriteBatch().Put("orders/2", "Orders", Order(2)));
        Assert.Equal(digests[0], Digest(store)); // the same documents again: the same digest

        store.Write(new WriteBatch().Delete("orders/2"));
        digests.Add(Digest(store));
        store.Write(new WriteBatch().Put("orders/3", "Orders", Order(2)));
        digests.Add(Digest(store));
        store.Write(new WriteBatch().Put("orders/2", "Orders", Order(2)).Delete("orders/3").Delete("orders/1").Put("Orders/1", "Orders", Order(1)));
        digests.Add(Digest(store)); // the id's casing is part of the document

        Assert.Equal(digests.Count, digests.Distinct().Count());

        static string Digest(DocumentStore store)
        {
            using var reader = store.BeginRead();
            return ClusterDigestEndpoints.Digest(reader, "Orders").Digest;
        }
    }

    [Fact]
    public async Task The_endpoint_answers_the_digest_and_refuses_a_missing_or_unknown_collection()
    {
        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(directory.Combine("data"));
        var store = server.Services.GetRequiredService<DocumentStore>();
        await store.WriteAsync(new WriteBatch()
            .Put("orders/1", "Orders", Order(1))
            .SetSourcePosition("orders/orders-topic", 2, 41)
            .SetSourcePosition("orders/orders-topic", 10, 7));

        using (var response = await server.Client.GetAsync(new Uri("/cluster/digest?collection=Orders", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            using var json = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
            using var reader = store.BeginRead();
            Assert.Equal(ClusterDigestEndpoints.Digest(reader, "Orders").Digest, json.RootElement.GetProperty("digest").GetString());
            Assert.Equal(1, json.RootElement.GetProperty("documents").GetInt64());
            Assert.Equal(
                [("orders-topic-2", 41L), ("orders-topic-10", 7L)],
                json.RootElement.GetProperty("positions").EnumerateObject().Select(static p => (p.Name, p.Value.GetInt64())));
        }

        using (var missing = await server.Client.GetAsync(new Uri("/cluster/digest", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.BadRequest, missing.StatusCode);
            Assert.Equal("application/problem+json", missing.Content.Headers.ContentType?.MediaType);
        }

        using (var unknown = await server.Client.GetAsync(new Uri("/cluster/digest?collection=Nothing", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
            Assert.Contains("Nothing", await unknown.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        }
    }
}
