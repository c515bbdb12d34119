using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Contracts.DeadLetters;
using Ingest.Documents;
using Ingest.Testing;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Sources.DeadLetters;

public sealed class DeadLetterEndpointsTests
{
    private static readonly byte[] BinaryHeader = [0xff, 0xfe, 0x00];

    /// <summary>Stores a Kafka record from "orders" that was dead-lettered, as a source would; returns its id.</summary>
    private static async Task<long> StoreDeadLetterAsync(DocumentStore store, string body, string reason = "not JSON: the body is not valid JSON")
    {
        var raw = DeadLetterEnvelope.Encode(
            "orders", "orders/7"u8, hasKey: true, messageId: null,
            [new("ingest-collection", "Orders"u8.ToArray()), new("trace", BinaryHeader)],
            Encoding.UTF8.GetBytes(body), isTombstone: false);
        return await StoreRawAsync(store, raw, reason);
    }

    private static async Task<long> StoreRawAsync(DocumentStore store, byte[] raw, string reason)
    {
        var before = store.GetStats().DeadLetterCount;
        await store.WriteAsync(new WriteBatch().AddDeadLetter(raw, new SourcePosition("gone-source/orders", 2, 41), reason));
        var all = store.GetDeadLetters(0, 10_000);
        Assert.Equal(before + 1, all.Count);
        return all[^1].Id;
    }

    [Fact]
    public async Task A_dead_letter_is_shown_with_its_envelope_decoded_and_binary_values_in_base64()
    {
        await using var server = await StartAsync();
        var id = await StoreDeadLetterAsync(server.Store, "{not json");

        var entry = await server.GetJsonAsync($"/dead-letters/{id}");

        Assert.Equal(id, entry.GetProperty("id").GetInt64());
        Assert.Equal("gone-source/orders", entry.GetProperty("source").GetString());
        Assert.Equal(2, entry.GetProperty("partition").GetInt32());
        Assert.Equal(41, entry.GetProperty("offset").GetInt64());
        Assert.Equal("not JSON: the body is not valid JSON", entry.GetProperty("reason").GetString());
        Assert.True(entry.GetProperty("envelope").GetBoolean());
        Assert.Equal("orders", entry.GetProperty("destination").GetString());
        Assert.Equal("orders/7", entry.GetProperty("key").GetString());
        Assert.Equal("utf8", entry.GetProperty("keyEncoding").GetString());
        Assert.Equal("Orders", entry.GetProperty("headers").GetProperty("ingest-collection").GetString());
        Assert.Equal(Convert.ToBase64String(BinaryHeader), entry.GetProperty("headers").GetProperty("trace").GetString());
        Assert.Equal("trace", Assert.Single(entry.GetProperty("base64Headers").EnumerateArray()).GetString());
        Assert.Equal("{not json", entry.GetProperty("body").GetString());
        Assert.Equal("utf8", entry.GetProperty("bodyEncoding").GetString());
        Assert.Equal(server.Store.GetDeadLetter(id)!.Raw.Length, entry.GetProperty("size").GetInt32());
        Assert.True(entry.TryGetProperty("stored", out _));
    }

    [Fact]
    public async Task Raw_bytes_that_are_not_an_envelope_are_shown_as_base64_with_envelope_false()
    {
        await using var server = await StartAsync();
        byte[] raw = [0x7b, 0xff, 0x00];
        var id = await StoreRawAsync(server.Store, raw, "stored truncated");

        var entry = await server.GetJsonAsync($"/dead-letters/{id}");

        Assert.False(entry.GetProperty("envelope").GetBoolean());
        Assert.False(string.IsNullOrEmpty(entry.GetProperty("envelopeError").GetString()));
        Assert.Equal(Convert.ToBase64String(raw), entry.GetProperty("body").GetString());
        Assert.Equal("base64", entry.GetProperty("bodyEncoding").GetString());

        using var replay = await server.Client.PostAsync(Relative($"/dead-letters/{id}/replay"), Json("{}"));
        Assert.Contains($"Dead letter {id}", await ReadProblemAsync(replay, HttpStatusCode.UnprocessableEntity), StringComparison.Ordinal);
        Assert.NotNull(server.Store.GetDeadLetter(id));
    }

    [Fact]
    public async Task Replay_with_a_fixed_body_that_is_not_valid_utf8_is_a_422_naming_the_byte_and_keeps_the_dead_letter()
    {
        await using var server = await StartAsync();
        var id = await StoreDeadLetterAsync(server.Store, "{\"total\": 12,");

        using var response = await server.Client.PostAsync(Relative($"/dead-letters/{id}/replay"), Json(InvalidUtf8Bodies.Body("encoded surrogate ED A0 80")));

        var detail = await ReadProblemAsync(response, HttpStatusCode.UnprocessableEntity);
        Assert.Contains("not valid UTF-8 at byte 6", detail, StringComparison.Ordinal);
        Assert.NotNull(server.Store.GetDeadLetter(id));
        Assert.Null(server.Store.Get("orders/7"));
    }

    [Fact]
    public async Task Dead_letters_page_in_id_order_and_each_comes_once()
    {
        await using var server = await StartAsync();
        var ids = new List<long>();
        for (var i = 0; i < 5; i++)
        {
            ids.Add(await StoreDeadLetterAsync(server.Store, $"bad {i}"));
        }

        var seen = new List<long>();
        string start = "0";
        for (var pages = 0; pages < 10; pages++)
        {
            var page = await server.GetJsonAsync($"/dead-letters?pageSize=2&start={start}");
            foreach (var item in page.GetProperty("items").EnumerateArray())
            {
                seen.Add(item.GetProperty("id").GetInt64());
            }

            var next = page.GetProperty("next");
            if (next.ValueKind == JsonValueKind.Null)
            {
                break;
            }

            start = next.GetInt64().ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        Assert.Equal(ids, seen);
    }

    [Fact]
    public async Task Replay_with_a_fixed_body_stores_the_document_and_removes_the_dead_letter_in_one_write()
    {
        await using var server = await StartAsync();
        var id = await StoreDeadLetterAsync(server.Store, "{\"total\": 12,");
        var other = await StoreDeadLetterAsync(server.Store, "{also bad");
        var commitsBefore = server.Store.CommitCount;
        const string fixedBody = "{\"total\": 12}";

        using var response = await server.Client.PostAsync(Relative($"/dead-letters/{id}/replay"), Json(fixedBody));

        var replayed = await ReadJsonAsync(response, HttpStatusCode.OK);
        Assert.Equal("orders/7", replayed.GetProperty("id").GetString());
        Assert.Equal("Orders", replayed.GetProperty("collection").GetString());
        Assert.Equal("put", replayed.GetProperty("operation").GetString());
        var etag = replayed.GetProperty("etag").GetInt64();
        var document = server.Store.Get("orders/7");
        Assert.NotNull(document);
        Assert.Equal(etag, document.Etag);
        Assert.Equal("Orders", document.Collection);
        Assert.Equal(fixedBody, Encoding.UTF8.GetString(document.Body.Span));
        Assert.Null(server.Store.GetDeadLetter(id));
        Assert.NotNull(server.Store.GetDeadLetter(other));
        Assert.Equal(1, server.Store.GetStats().DeadLetterCount);
        Assert.Equal(commitsBefore + 1, server.Store.CommitCount);
        using var gone = await server.Client.GetAsync(Relative($"/dead-letters/{id}"));
        await ReadProblemAsync(gone, HttpStatusCode.NotFound);
    }

    [Fact]
    public async Task Replay_of_a_message_that_now_maps_stores_it_as_it_was_received()
    {
        await using var server = await StartAsync();
        // Dead-lettered for a reason since put right (say, the store was full); the body itself is fine.
        var id = await StoreDeadLetterAsync(server.Store, "{\"ok\":true}", "store rejected the batch");

        using var response = await server.Client.PostAsync(Relative($"/dead-letters/{id}/replay"), content: null);

        await ReadJsonAsync(response, HttpStatusCode.OK);
        Assert.Equal("{\"ok\":true}", Encoding.UTF8.GetString(server.Store.Get("orders/7")!.Body.Span));
        Assert.Null(server.Store.GetDeadLetter(id));
    }

    [Fact]
    public async Task Replay_without_a_fix_is_a_422_problem_with_the_reason_and_the_dead_letter_stays()
    {
        await using var server = await StartAsync();
        var id = await StoreDeadLetterAsync(server.Store, "{not json");

        using var response = await server.Client.PostAsync(Relative($"/dead-letters/{id}/replay"), content: null);

        var detail = await ReadProblemAsync(response, HttpStatusCode.UnprocessableEntity);
        Assert.Contains("not JSON", detail, StringComparison.Ordinal);
        Assert.Contains("kept", detail, StringComparison.Ordinal);
        Assert.NotNull(server.Store.GetDeadLetter(id));
        Assert.Null(server.Store.Get("orders/7"));
    }

    [Fact]
    public async Task Replay_delete_and_get_of_a_missing_dead_letter_are_404_problems_and_a_bad_id_is_a_400()
    {
        await using var server = await StartAsync();

        using var replay = await server.Client.PostAsync(Relative("/dead-letters/99/replay"), Json("{}"));
        Assert.Contains("99", await ReadProblemAsync(replay, HttpStatusCode.NotFound), StringComparison.Ordinal);
        using var delete = await server.Client.DeleteAsync(Relative("/dead-letters/99"));
        await ReadProblemAsync(delete, HttpStatusCode.NotFound);
        using var get = await server.Client.GetAsync(Relative("/dead-letters/99"));
        await ReadProblemAsync(get, HttpStatusCode.NotFound);
        using var bad = await server.Client.GetAsync(Relative("/dead-letters/abc"));
        Assert.Contains("'id' is 'abc'", await ReadProblemAsync(bad, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        using var badPage = await server.Client.GetAsync(Relative("/dead-letters?pageSize=5000"));
        Assert.Contains("'pageSize' is '5000'", await ReadProblemAsync(badPage, HttpStatusCode.BadRequest), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Delete_removes_a_dead_letter_once()
    {
        await using var server = await StartAsync();
        var id = await StoreDeadLetterAsync(server.Store, "{not json");

        using var first = await server.Client.DeleteAsync(Relative($"/dead-letters/{id}"));
        Assert.Equal(HttpStatusCode.NoContent, first.StatusCode);
        using var second = await server.Client.DeleteAsync(Relative($"/dead-letters/{id}"));
        await ReadProblemAsync(second, HttpStatusCode.NotFound);
        Assert.Equal(0, server.Store.GetStats().DeadLetterCount);
    }
}
