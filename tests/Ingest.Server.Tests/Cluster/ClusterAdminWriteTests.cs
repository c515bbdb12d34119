using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Contracts.DeadLetters;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Cluster;

/// <summary>
/// The admin writes in cluster mode: made on node A, applied on node B through the cluster topic (two in-process nodes
/// on the real broker). Without the log, each of these would change A only and every wait on B would time out.
/// </summary>
[Collection(BrokerFixture.Collection)]
public sealed class ClusterAdminWriteTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task An_index_reset_on_one_node_rebuilds_the_index_on_the_other()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var doc = await cluster.A.Client.PutAsync("/docs/o-1?collection=Orders", Json("""{"customer":"c1"}"""));
        Assert.Equal(HttpStatusCode.Created, doc.StatusCode);
        var put = await cluster.A.Client.PutAsync("/indexes/orders-by-customer", Json("""{"name":"orders-by-customer","collections":["Orders"],"fields":[{"name":"Customer","path":"customer","type":"keyword"}]}"""));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);

        // The document and the index may be in different partitions, applied on B in either order: wait for both, and
        // for B to have indexed the document, before noting B's last index batch.
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/indexes/orders-by-customer?after={Position(doc)}&after={Position(put)}")).StatusCode);
        string? before = null;
        await WaitUntilAsync(
            async () =>
            {
                using var details = JsonDocument.Parse(await cluster.B.Client.GetStringAsync("/indexes/orders-by-customer"));
                before = await LastBatchAtAsync(cluster.B);
                return details.RootElement.GetProperty("entries").GetInt64() == 1 && !details.RootElement.GetProperty("stale").GetBoolean() && before is not null;
            },
            Patience,
            "B indexed the document");

        var reset = await cluster.A.Client.PostAsync("/indexes/orders-by-customer/reset", null);
        Assert.Equal(HttpStatusCode.Accepted, reset.StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/indexes/orders-by-customer?after={Position(reset)}")).StatusCode);
        await WaitUntilAsync(async () => await LastBatchAtAsync(cluster.B) is { } after && after != before, Patience, "B rebuilt the index");

        Assert.Equal(HttpStatusCode.NotFound, (await cluster.A.Client.PostAsync("/indexes/nothing-here/reset", null)).StatusCode);
    }

    [Fact]
    public async Task Dead_letter_replays_and_deletes_apply_on_every_node_by_origin_though_their_ids_differ()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("cluster-dl");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await using var cluster = await TwoNodes.StartAsync(brokers, KafkaSource(kafka.BootstrapServers, topic, "a"), KafkaSource(kafka.BootstrapServers, topic, "b"));
        var storeA = cluster.A.Services.GetRequiredService<DocumentStore>();
        var storeB = cluster.B.Services.GetRequiredService<DocumentStore>();

        // B's own dead letter, before the topic has anything: B numbers the topic's dead letters from 2, A from 1. It
        // sits where A's local one below sits (a RabbitMQ delivery tag repeats), but holds another message.
        var localB = await StoreLocalDeadLetterAsync(storeB, "local-b", """{"n":"b"}""");
        await ProduceAsync(kafka.BootstrapServers, topic, [Record("o-1", "{not json"), Record("o-2", "{bad"), Record("o-3", """{"ok":3}""")]);
        await WaitUntilAsync(() => storeA.GetStats().DeadLetterCount == 2 && storeB.GetStats().DeadLetterCount == 3, Patience, "both nodes dead-lettered the two bad records");
        var first = DeadLetterAt(storeA, 0);
        Assert.NotEqual(first.Id, DeadLetterAt(storeB, 0).Id);

        var replay = await cluster.A.Client.PostAsync($"/dead-letters/{first.Id}/replay", Json("""{"fixed":1}"""));
        var answer = await replay.Content.ReadAsStringAsync();
        Assert.True(replay.StatusCode == HttpStatusCode.OK, answer);
        using (var replayed = JsonDocument.Parse(answer))
        {
            Assert.Equal("o-1", replayed.RootElement.GetProperty("id").GetString());
            Assert.Equal(storeA.Get("o-1")!.Etag, replayed.RootElement.GetProperty("etag").GetInt64());
        }

        var onB = await cluster.B.Client.GetAsync($"/docs/o-1?after={Position(replay)}");
        Assert.Equal("""{"fixed":1}""", await onB.Content.ReadAsStringAsync());
        // Both versions record the replay record's place in the cluster topic: one identity for them on every node.
        Assert.True(ClusterPosition.TryParse(Position(replay), out var replayedAt));
        Assert.Equal(new LogPosition(cluster.Topic, replayedAt.Partition, replayedAt.Offset), storeA.Get("o-1")!.Position);
        Assert.Equal(storeA.Get("o-1")!.Position, storeB.Get("o-1")!.Position);
        Assert.Null(storeA.GetDeadLetter(first.Id));
        Assert.Equal([localB, DeadLetterAt(storeB, 1).Id], Ids(storeB));

        var second = DeadLetterAt(storeA, 1);
        var delete = await cluster.A.Client.DeleteAsync($"/dead-letters/{second.Id}");
        Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/dead-letters?after={Position(delete)}")).StatusCode);
        Assert.Equal([localB], Ids(storeB));
        Assert.Empty(Ids(storeA));
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.A.Client.DeleteAsync($"/dead-letters/{second.Id}")).StatusCode);

        // A dead letter only A has (its own RabbitMQ consumer's, say): its replay carries the message, so B writes the
        // same document, and B's dead letter at the same place, with other bytes, stays.
        var localA = await StoreLocalDeadLetterAsync(storeA, "local-a", """{"n":"a"}""");
        var localReplay = await cluster.A.Client.PostAsync($"/dead-letters/{localA}/replay", null);
        Assert.Equal(HttpStatusCode.OK, localReplay.StatusCode);
        Assert.Equal("""{"n":"a"}""", await (await cluster.B.Client.GetAsync($"/docs/local-a?after={Position(localReplay)}")).Content.ReadAsStringAsync());
        Assert.Equal([localB], Ids(storeB));
        Assert.Empty(Ids(storeA));
    }

    [Fact]
    public async Task A_source_reset_on_one_node_moves_every_node_to_the_offsets_it_resolved()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("cluster-reset");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await ProduceAsync(kafka.BootstrapServers, topic, [.. Enumerable.Range(0, 10).Select(i => Record($"r-{i}", $$"""{"i":{{i}}}"""))]);
        await using var cluster = await TwoNodes.StartAsync(brokers, KafkaSource(kafka.BootstrapServers, topic, "a"), KafkaSource(kafka.BootstrapServers, topic, "b"));
        var storeA = cluster.A.Services.GetRequiredService<DocumentStore>();
        var storeB = cluster.B.Services.GetRequiredService<DocumentStore>();
        var origin = $"orders/{topic}";
        await WaitUntilAsync(() => StoredTotal(storeA, origin) == 10 && StoredTotal(storeB, origin) == 10, Patience, "both nodes consumed the topic");
        var versionsB = storeB.Get("r-0")!.Etag;

        var reset = await cluster.A.Client.PostAsync("/sources/orders/reset", Json("""{"to":"earliest"}"""));
        var answer = await reset.Content.ReadAsStringAsync();
        Assert.True(reset.StatusCode == HttpStatusCode.OK, answer);
        Assert.Equal($$"""{"source":"orders","to":"earliest","partitions":[{"topic":"{{topic}}","partition":0,"from":10,"to":0}]}""", answer);

        // B applies the same reset to its own position: it consumes the topic again, and each document gets a new version.
        Assert.True(ClusterPosition.TryParse(Position(reset), out var position));
        await cluster.B.Services.GetRequiredService<IClusterLog>().WaitAppliedAsync(position, CancellationToken.None);
        await WaitUntilAsync(() => storeB.Get("r-0")!.Etag > versionsB && StoredTotal(storeB, origin) == 10, Patience, "B consumed the topic again");

        // Refused on the receiving node before anything is produced, as on a single node.
        var beyond = await cluster.A.Client.PostAsync("/sources/orders/reset", Json("{\"to\":{\"" + topic + "\":{\"0\":99}}}"));
        Assert.Equal(HttpStatusCode.BadRequest, beyond.StatusCode);
        Assert.False(beyond.Headers.Contains(ClusterWrites.PositionHeader));
    }

    [Fact]
    public async Task An_etl_task_defined_on_one_node_appears_on_the_other_and_its_delete_too()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var put = await cluster.A.Client.PutAsync("/etl/orders-out", Json("""{"collections":["Orders"],"kafka":{"bootstrapServers":"127.0.0.1:9","topic":"t"}}"""));
        var answer = await put.Content.ReadAsStringAsync();
        Assert.True(put.StatusCode == HttpStatusCode.Created, answer);
        var onB = await cluster.B.Client.GetAsync($"/etl/orders-out?after={Position(put)}");
        Assert.Equal(HttpStatusCode.OK, onB.StatusCode);
        Assert.Contains("\"topic\":\"t\"", await onB.Content.ReadAsStringAsync(), StringComparison.Ordinal);

        var replaced = await cluster.A.Client.PutAsync("/etl/orders-out", Json("""{"collections":["Orders"],"kafka":{"bootstrapServers":"127.0.0.1:9","topic":"t2"}}"""));
        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
        Assert.Contains("\"topic\":\"t2\"", await (await cluster.B.Client.GetAsync($"/etl/orders-out?after={Position(replaced)}")).Content.ReadAsStringAsync(), StringComparison.Ordinal);

        // Invalid: 400 on the receiving node, nothing produced.
        var invalid = await cluster.A.Client.PutAsync("/etl/bad", Json("""{"collections":["Orders"],"kafka":{"topic":"t","settings":{"acks":"1"}}}"""));
        Assert.Equal(HttpStatusCode.BadRequest, invalid.StatusCode);
        Assert.False(invalid.Headers.Contains(ClusterWrites.PositionHeader));

        var delete = await cluster.A.Client.DeleteAsync("/etl/orders-out");
        Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.B.Client.GetAsync($"/etl/orders-out?after={Position(delete)}")).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.A.Client.DeleteAsync("/etl/orders-out")).StatusCode);
    }

    [Fact]
    public async Task A_saved_grafana_query_stored_on_one_node_appears_on_the_other_and_its_delete_too()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var put = await cluster.A.Client.PutAsync("/grafana/queries/by-status", Json("""{"query":"from Orders group by Status select count()","description":"orders per status"}"""));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        var onB = await cluster.B.Client.GetAsync($"/grafana/queries/by-status?after={Position(put)}");
        Assert.Equal(HttpStatusCode.OK, onB.StatusCode);
        Assert.Contains("orders per status", await onB.Content.ReadAsStringAsync(), StringComparison.Ordinal);

        var replaced = await cluster.A.Client.PutAsync("/grafana/queries/by-status", Json("""{"query":"from Orders group by Status select count()","description":"v2"}"""));
        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
        Assert.Contains("v2", await (await cluster.B.Client.GetAsync($"/grafana/queries/by-status?after={Position(replaced)}")).Content.ReadAsStringAsync(), StringComparison.Ordinal);

        var delete = await cluster.A.Client.DeleteAsync("/grafana/queries/by-status");
        Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.B.Client.GetAsync($"/grafana/queries/by-status?after={Position(delete)}")).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.A.Client.DeleteAsync("/grafana/queries/by-status")).StatusCode);
    }

    /// <summary>A Kafka source "orders" into collection Orders, in a group of the node's own (as each node of a cluster consumes everything).</summary>
    private static string[] KafkaSource(string bootstrap, string topic, string node) =>
    [
        "--Ingest:Sources:Kafka:0:Name=orders",
        $"--Ingest:Sources:Kafka:0:BootstrapServers={bootstrap}",
        $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
        $"--Ingest:Sources:Kafka:0:GroupId={NewName("group-" + node)}",
        "--Ingest:Sources:Kafka:0:Collection=Orders",
    ];

    /// <summary>A dead letter only this node has, at the place a RabbitMQ source's first delivery would be.</summary>
    private static async Task<long> StoreLocalDeadLetterAsync(DocumentStore store, string id, string body)
    {
        var raw = DeadLetterEnvelope.Encode(
            "q", Encoding.UTF8.GetBytes(id), hasKey: true, messageId: null, [new("ingest-collection", "Orders"u8.ToArray())], Encoding.UTF8.GetBytes(body), isTombstone: false);
        await store.WriteAsync(new WriteBatch().AddDeadLetter(raw, new SourcePosition("events/q", 0, 1), "rejected for the test"));
        return store.GetDeadLetters(0, 1000)[^1].Id;
    }

    private static DeadLetter DeadLetterAt(DocumentStore store, long offset) =>
        store.GetDeadLetters(0, 1000).Single(d => d.Position.Source.StartsWith("orders/", StringComparison.Ordinal) && d.Position.NextOffset == offset);

    private static long[] Ids(DocumentStore store) => [.. store.GetDeadLetters(0, 1000).Select(static d => d.Id)];

    private static async Task<string?> LastBatchAtAsync(Hosting.RunningServer node)
    {
        using var details = JsonDocument.Parse(await node.Client.GetStringAsync("/indexes/orders-by-customer"));
        var at = details.RootElement.GetProperty("batches").GetProperty("lastBatchAt");
        return at.ValueKind == JsonValueKind.Null ? null : at.GetString();
    }

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/json");

    private static string Position(HttpResponseMessage response) => response.Headers.GetValues(ClusterWrites.PositionHeader).Single();
}
