using Ingest.Contracts.Mapping;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
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

    public void Dispose() => _temp.Dispose();

    private SourcePipeline Pipeline(RecordingAcknowledger acknowledger) =>
        new("src", "rabbitmq", new MappingRules(), script: null, _temp.Store, new BatchingOptions(), acknowledger, NullLoggerFactory.Instance, TimeProvider.System);

    private static IncomingMessage Amqp(ReadOnlySpan<byte> body, string messageId) => IncomingMessage.FromAmqp("queue", messageId, body, null);
}
