using System.Net;
using System.Text;
using Ingest.Contracts.DeadLetters;
using Ingest.Documents;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Sources.DeadLetters;

/// <summary>Replaying a dead letter of a source with a transform runs the source's script, as consuming would.</summary>
public sealed class TransformedReplayTests
{
    private const string Script =
        "function transform(order, m) { if (order.bad) throw new Error('still bad'); if (order.skip) return; return order.lines.map((l, i) => ({ id: m.queue + '/' + order.no + '/' + i, collection: 'Lines', body: l })); }";

    [Fact]
    public async Task Replay_runs_the_source_script_and_stores_every_operation_or_answers_422_with_its_error()
    {
        // The broker is unreachable on purpose: replay needs the source's settings, not its connection.
        await using var server = await StartAsync(
            "--Ingest:Sources:RabbitMq:0:Name=scripted",
            "--Ingest:Sources:RabbitMq:0:Uri=amqp://guest:guest@127.0.0.1:1/",
            "--Ingest:Sources:RabbitMq:0:Queues:0=orders",
            $"--Ingest:Sources:RabbitMq:0:Script={Script}");
        var fanOut = await StoreAsync(server.Store, """{"bad":true,"no":7}""");
        var failing = await StoreAsync(server.Store, """{"bad":true,"no":8}""");
        var skipped = await StoreAsync(server.Store, """{"skip":true}""");

        using (var response = await server.Client.PostAsync(Relative($"/dead-letters/{fanOut}/replay"), Json("""{"no":7,"lines":[{"sku":"a"},{"sku":"b"}]}""")))
        {
            var replayed = await ReadJsonAsync(response, HttpStatusCode.OK);
            Assert.Equal("orders/7/0", replayed.GetProperty("id").GetString());
            Assert.Equal("Lines", replayed.GetProperty("collection").GetString());
            Assert.Equal("put", replayed.GetProperty("operation").GetString());
        }

        Assert.Equal("""{"sku":"a"}""", Encoding.UTF8.GetString(server.Store.Get("orders/7/0")!.Body.Span));
        Assert.Equal("""{"sku":"b"}""", Encoding.UTF8.GetString(server.Store.Get("orders/7/1")!.Body.Span));
        Assert.Null(server.Store.GetDeadLetter(fanOut));

        using (var response = await server.Client.PostAsync(Relative($"/dead-letters/{failing}/replay"), content: null))
        {
            Assert.Contains("transform failed: ", await ReadProblemAsync(response, HttpStatusCode.UnprocessableEntity), StringComparison.Ordinal);
        }

        Assert.NotNull(server.Store.GetDeadLetter(failing));

        using (var response = await server.Client.PostAsync(Relative($"/dead-letters/{skipped}/replay"), content: null))
        {
            Assert.Equal("skip", (await ReadJsonAsync(response, HttpStatusCode.OK)).GetProperty("operation").GetString());
        }

        Assert.Null(server.Store.GetDeadLetter(skipped));
        Assert.Equal(2, server.Store.GetStats().DocumentCount);
    }

    private static async Task<long> StoreAsync(DocumentStore store, string body)
    {
        var raw = DeadLetterEnvelope.Encode("orders", default, hasKey: false, messageId: "m-1", null, Encoding.UTF8.GetBytes(body), isTombstone: false);
        await store.WriteAsync(new WriteBatch().AddDeadLetter(raw, new SourcePosition("scripted/orders", 0, 1), "transform failed: Error: bad"));
        return store.GetDeadLetters(0, 10_000)[^1].Id;
    }
}
