using System.Net;
using System.Net.Http.Headers;
using System.Text;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Cluster;

/// <summary>Two in-process nodes, each with its own data directory, on one cluster topic of the real broker.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class ClusterWriteTests(BrokerFixture brokers)
{
    [Fact]
    public async Task A_put_on_one_node_is_readable_on_the_other_after_its_position()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var put = await cluster.A.Client.PutAsync("/docs/orders/1?collection=Orders", Json("""{"total":12}"""));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        var position = Position(put);
        Assert.NotNull(put.Headers.ETag);

        var read = await cluster.B.Client.GetAsync($"/docs/orders/1?after={position}");
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Equal("""{"total":12}""", await read.Content.ReadAsStringAsync());
        Assert.Equal("Orders", read.Headers.GetValues("X-Ingest-Collection").Single());

        // The receiver answers after applying: its own read needs no ?after=.
        Assert.Equal(HttpStatusCode.OK, (await cluster.A.Client.GetAsync("/docs/ORDERS/1")).StatusCode);
    }

    [Fact]
    public async Task A_delete_replicates_to_the_other_node()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var put = await cluster.A.Client.PutAsync("/docs/d-1?collection=Orders", Json("""{"a":1}"""));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/docs/d-1?after={Position(put)}")).StatusCode);

        var delete = await cluster.A.Client.DeleteAsync("/docs/d-1");
        Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.B.Client.GetAsync($"/docs/d-1?after={Position(delete)}")).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.A.Client.DeleteAsync("/docs/d-1")).StatusCode);
    }

    [Fact]
    public async Task A_stale_if_match_answers_412_on_the_receiver_and_changes_nothing_anywhere()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var first = await cluster.A.Client.PutAsync("/docs/c-1?collection=Orders", Json("""{"v":1}"""));
        var staleEtagOnA = first.Headers.ETag!.Tag;

        // B replaces it, with If-Match naming B's own etag of the first version.
        var onB = await cluster.B.Client.GetAsync($"/docs/c-1?after={Position(first)}");
        var replace = new HttpRequestMessage(HttpMethod.Put, "/docs/c-1") { Content = Json("""{"v":2}""") };
        replace.Headers.IfMatch.Add(onB.Headers.ETag!);
        var replaced = await cluster.B.Client.SendAsync(replace);
        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);

        // A, once it has the second version, refuses a write conditioned on the first.
        Assert.Equal(HttpStatusCode.OK, (await cluster.A.Client.GetAsync($"/docs/c-1?after={Position(replaced)}")).StatusCode);
        var stale = new HttpRequestMessage(HttpMethod.Put, "/docs/c-1") { Content = Json("""{"v":3}""") };
        stale.Headers.IfMatch.Add(new EntityTagHeaderValue(staleEtagOnA));
        Assert.Equal(HttpStatusCode.PreconditionFailed, (await cluster.A.Client.SendAsync(stale)).StatusCode);

        // A conditional record whose version changed between the receiver's check and the apply: every node skips it,
        // and the node that produced it learns so.
        var log = cluster.A.Services.GetRequiredService<IClusterLog>();
        var record = new ClusterRecord(
            "doc", "c-1", Encoding.UTF8.GetBytes("""{"v":4}"""),
            [new(ClusterHeaders.Collection, "Orders"u8.ToArray()), new(ClusterHeaders.IfMatch, "sha256:00000000000000000000000000000000"u8.ToArray())]);
        var position = await log.AppendAsync(record, CancellationToken.None);
        await log.WaitAppliedAsync(position, CancellationToken.None);
        Assert.NotNull(cluster.A.Services.GetRequiredService<ClusterOutcomes>().TakeFailure(position));

        foreach (var node in new[] { cluster.A, cluster.B })
        {
            var read = await node.Client.GetAsync($"/docs/c-1?after={position}");
            Assert.Equal("""{"v":2}""", await read.Content.ReadAsStringAsync());
        }
    }

    [Fact]
    public async Task The_cluster_position_is_stored_in_the_same_transaction_as_the_write()
    {
        var cluster = await TwoNodes.StartAsync(brokers);
        ClusterPosition position;
        try
        {
            var put = await cluster.A.Client.PutAsync("/docs/p-1?collection=Orders", Json("""{"p":1}"""));
            Assert.True(ClusterPosition.TryParse(Position(put), out position));
        }
        finally
        {
            await cluster.DisposeAsync(keepDirectories: true);
        }

        using (cluster.DirectoryA)
        using (cluster.DirectoryB)
        {
            using var store = DocumentStore.Open(Path.Combine(cluster.DirectoryA.Path, "store"));
            Assert.NotNull(store.Get("p-1"));
            var stored = store.GetSourcePosition($"{ClusterApplier.SourceName}/{cluster.Topic}", position.Partition);
            Assert.NotNull(stored);
            Assert.True(stored.Value.Position.NextOffset > position.Offset);
        }
    }

    [Fact]
    public async Task After_on_a_single_node_and_a_malformed_after_are_refused()
    {
        using var directory = new TestDirectory();
        await using var server = await RunningServer.StartAsync(directory.Path);
        var single = await server.Client.GetAsync("/docs/x?after=0:1");
        Assert.Equal(HttpStatusCode.BadRequest, single.StatusCode);
        Assert.Contains("not in a cluster", await single.Content.ReadAsStringAsync(), StringComparison.Ordinal);

        await using var cluster = await TwoNodes.StartAsync(brokers);
        Assert.Equal(HttpStatusCode.BadRequest, (await cluster.A.Client.GetAsync("/docs/x?after=zero")).StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, (await cluster.A.Client.GetAsync("/docs/x?after=99:1")).StatusCode);
        var put = await cluster.A.Client.PutAsync("/docs/x?collection=Orders", Json("{}"));
        var position = Position(put);
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/docs/x?after={position},{position}&after={position}")).StatusCode);
    }

    [Fact]
    public async Task An_index_defined_on_one_node_appears_on_the_other()
    {
        await using var cluster = await TwoNodes.StartAsync(brokers);
        var put = await cluster.A.Client.PutAsync("/indexes/orders-by-total", Json("""{"name":"orders-by-total","collections":["Orders"],"fields":[{"name":"Customer","path":"customer","type":"keyword"}]}"""));
        var text = await put.Content.ReadAsStringAsync();
        Assert.True(put.StatusCode == HttpStatusCode.Created, text);
        var position = Position(put);
        Assert.Equal(HttpStatusCode.OK, (await cluster.B.Client.GetAsync($"/indexes/orders-by-total?after={position}")).StatusCode);

        var delete = await cluster.A.Client.DeleteAsync("/indexes/orders-by-total");
        Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await cluster.B.Client.GetAsync($"/indexes/orders-by-total?after={Position(delete)}")).StatusCode);
    }

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/json");

    private static string Position(HttpResponseMessage response) => response.Headers.GetValues(ClusterWrites.PositionHeader).Single();
}
