using System.Text;
using Ingest.Testing;

namespace Ingest.Documents.Tests.Ids;

/// <summary>
/// DocumentReader.TryGetEtag answers for a UTF-8 id what TryGet answers for the string: the same documents are live
/// (whatever the id's casing, non-ASCII included), at the same etag, and deleted or expired ones are not.
/// </summary>
public sealed class TryGetEtagTests
{
    [Fact]
    public void A_utf8_id_is_live_exactly_when_try_get_finds_it_at_the_same_etag()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch()
            .Put("orders/1", "C", "{}")
            .Put("Ördér/Ünïcode", "C", "{}")
            .Put("gone", "C", "{}")
            .Put("expired", "C", """{"@metadata":{"@expires":"2020-01-01T00:00:00Z"}}""")
            .Put("later", "C", """{"@metadata":{"@expires":"2100-01-01T00:00:00Z"}}"""));
        store.Write(new WriteBatch().Delete("gone"));

        using var reader = store.BeginRead();
        foreach (var id in new[] { "orders/1", "ORDERS/1", "Ördér/Ünïcode", "öRDÉR/üNÏCODE", "gone", "expired", "later", "missing", "" })
        {
            var found = reader.TryGet(id, out var document);
            Assert.Equal(found, reader.TryGetEtag(Encoding.UTF8.GetBytes(id), out var etag));
            Assert.Equal(found ? document.Etag : 0, etag);
        }

        Assert.True(reader.TryGetEtag("orders/1"u8, out _));
        Assert.False(reader.TryGetEtag("gone"u8, out _));
        Assert.False(reader.TryGetEtag("expired"u8, out _));
        Assert.False(reader.TryGetEtag(new byte[DocumentStoreOptions.MaxIdBytes + 1], out _));
    }

    [Fact]
    public void Any_expiring_says_whether_some_document_carries_an_expiry_as_count_expiring_does()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put("orders/1", "C", "{}").Put("orders/2", "C", "{}"));
        using (var reader = store.BeginRead())
        {
            Assert.False(reader.AnyExpiring);
            Assert.Equal(0, reader.CountExpiring(DateTime.UtcNow, maxCounted: 0).Expiring);
            Assert.True(reader.TryGetEtag("ORDERS/1"u8, out var etag)); // no record lookup, the same etag
            Assert.True(reader.TryGet("orders/1", out var document));
            Assert.Equal(document.Etag, etag);
        }

        store.Write(new WriteBatch().Put("later", "C", """{"@metadata":{"@expires":"2100-01-01T00:00:00Z"}}"""));
        using (var reader = store.BeginRead())
        {
            Assert.True(reader.AnyExpiring);
            Assert.Equal(1, reader.CountExpiring(DateTime.UtcNow, maxCounted: 0).Expiring);
            Assert.True(reader.TryGetEtag("later"u8, out _));
        }

        store.Write(new WriteBatch().Delete("later"));
        using (var reader = store.BeginRead())
        {
            Assert.False(reader.AnyExpiring); // the delete took its expiry with it
            Assert.False(reader.TryGetEtag("later"u8, out _));
        }
    }
}
