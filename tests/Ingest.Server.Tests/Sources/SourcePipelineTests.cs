using System.Text;
using Ingest.Contracts.Messages;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Mapping;
using Ingest.Server.Sources.RabbitMq;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Sources;

/// <summary>The half of a source every broker shares: map, count, hand over, report.</summary>
public sealed class SourcePipelineTests : IDisposable
{
    private readonly TempDocumentStore _temp = new();

    [Fact]
    public async Task Messages_are_counted_mapped_and_written_and_the_status_shows_puts_and_dead_letters()
    {
        var acknowledger = new RecordingAcknowledger(_temp.Store);
        await using var pipeline = Pipeline(acknowledger);

        var put = pipeline.Map(Amqp("""{"n":1}"""u8, "doc-1"), new AmqpEnvelopeHeaders(null), default, new ItemPosition("test/topic", 0, 0, 0));
        var poison = pipeline.Map(Amqp("not json"u8, "doc-2"), new AmqpEnvelopeHeaders(null), default, new ItemPosition("test/topic", 0, 1, 0));
        await pipeline.AddAsync(put, CancellationToken.None);
        await pipeline.AddAsync(poison, CancellationToken.None);
        await pipeline.Writer.DrainAsync();

        Assert.Equal((IngestItemKind.Put, IngestItemKind.DeadLetter), (put.Kind, poison.Kind));
        Assert.NotNull(_temp.Store.Get("doc-1"));
        var status = pipeline.Status("src", connected: true, error: null, paused: false, []);
        Assert.Equal(("src", "rabbitmq", 2L, 1L, 1L), (status.Name, status.Kind, status.Consumed, status.Written, status.DeadLetters));
        Assert.StartsWith("not JSON", Assert.Single(_temp.Store.GetDeadLetters()).Reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_item_the_writer_no_longer_takes_is_refused_with_an_exception_so_the_source_can_redeliver_it()
    {
        await using var pipeline = Pipeline(new RecordingAcknowledger(_temp.Store));
        await pipeline.Writer.CompleteAsync();
        var item = pipeline.Map(Amqp("""{"n":1}"""u8, "doc-1"), new AmqpEnvelopeHeaders(null), default, new ItemPosition("test/topic", 0, 0, 0));

        await Assert.ThrowsAsync<InvalidOperationException>(async () => await pipeline.AddAsync(item, CancellationToken.None));

        Assert.Equal(1, pipeline.Consumed);
        Assert.Null(_temp.Store.Get("doc-1"));
    }

    [Fact]
    public async Task The_sources_own_error_wins_over_the_writers_in_the_status()
    {
        await using var pipeline = Pipeline(new RecordingAcknowledger(_temp.Store));

        var status = pipeline.Status("src", connected: false, error: "connection lost", paused: true, []);

        Assert.Equal((false, "connection lost", true), (status.Connected, status.Error, status.Paused));
    }

    [Fact]
    public async Task A_transform_runs_in_the_writer_in_order_and_its_failures_become_dead_letters_in_the_batch_that_holds_their_positions()
    {
        const string Script = """
            function transform(b, m) {
              if (b.loop) { while (true) {} }
              if (b.fail) throw new Error('refused ' + b.n);
              return { id: 'doc-' + b.n, body: { n: b.n, via: m.queue, kept: b } };
            }
            """;
        Assert.True(SourceScript.TryCompile(Script, new(TimeSpan.FromMilliseconds(200), 32L * 1024 * 1024), out var script, out var error), error);
        var acknowledger = new RecordingAcknowledger(_temp.Store);
        await using var pipeline = new SourcePipeline(
            "src", "rabbitmq", new MappingRules(), script, _temp.Store, new BatchingOptions(), acknowledger, acknowledger, NullLoggerFactory.Instance, TimeProvider.System);
        string[] bodies = ["""{"n":1,"x":"a"}""", """{"n":2,"fail":true}""", """{"n":3,"loop":true}""", "not json", """{"n":5,"x":"e"}"""];

        var items = new List<IngestItem>();
        for (var i = 0; i < bodies.Length; i++)
        {
            // The client reuses its buffer once the handler returns: overwritten here after mapping.
            var buffer = Encoding.UTF8.GetBytes(bodies[i]);
            items.Add(pipeline.Map(Amqp(buffer, $"m-{i}"), new AmqpEnvelopeHeaders(null), default, new ItemPosition("test/queue", 0, i, 0)));
            Array.Fill(buffer, (byte)'#');
        }

        // Only captured on the consume thread: the script has not run yet.
        Assert.All(items, static item => Assert.Equal(IngestItemKind.AwaitingTransform, item.Kind));
        foreach (var item in items)
        {
            await pipeline.AddAsync(item, CancellationToken.None);
        }

        await pipeline.Writer.DrainAsync();

        Assert.Equal("""{"n":1,"via":"queue","kept":{"n":1,"x":"a"}}""", Encoding.UTF8.GetString(_temp.Store.Get("doc-1")!.Body.Span));
        Assert.Equal("""{"n":5,"via":"queue","kept":{"n":5,"x":"e"}}""", Encoding.UTF8.GetString(_temp.Store.Get("doc-5")!.Body.Span));
        var deadLetters = _temp.Store.GetDeadLetters();
        Assert.Equal(3, deadLetters.Count);
        Assert.StartsWith("transform failed: refused 2", deadLetters[0].Reason, StringComparison.Ordinal);
        Assert.StartsWith("transform failed: the script ran longer than its time limit", deadLetters[1].Reason, StringComparison.Ordinal);
        Assert.StartsWith("transform failed: not JSON", deadLetters[2].Reason, StringComparison.Ordinal);
        Assert.Equal([0L, 1L, 2L, 3L, 4L], acknowledger.Acknowledged.SelectMany(static offsets => offsets));
        var status = pipeline.Status("src", connected: true, error: null, paused: false, []);
        Assert.Equal((5L, 2L, 3L), (status.Consumed, status.Written, status.DeadLetters));
    }

    public void Dispose() => _temp.Dispose();

    private SourcePipeline Pipeline(RecordingAcknowledger acknowledger) =>
        new("src", "rabbitmq", new MappingRules(), script: null, _temp.Store, new BatchingOptions(), acknowledger, acknowledger, NullLoggerFactory.Instance, TimeProvider.System);

    private static IncomingMessage Amqp(ReadOnlySpan<byte> body, string messageId) => IncomingMessage.FromAmqp("queue", messageId, body, null);
}
