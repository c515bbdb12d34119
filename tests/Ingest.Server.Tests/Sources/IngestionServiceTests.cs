using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Mapping;
using Ingest.Server.Sources.RabbitMq;
using Microsoft.Extensions.Logging.Abstractions;

namespace Ingest.Server.Tests.Sources;

public sealed class IngestionServiceTests
{
    [Fact]
    public async Task A_source_that_fails_to_dispose_does_not_keep_the_others_from_being_disposed()
    {
        using var temp = new TempDocumentStore();
        var rabbit = new RabbitMqSource(
            "after", new RabbitMqSourceOptions { Uri = "amqp://guest:guest@127.0.0.1:1/", Queues = ["q"] },
            temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);
        var service = new IngestionService([new SourceThatFailsToDispose(), rabbit], NullLogger<IngestionService>.Instance);

        await service.DisposeAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => rabbit.StartAsync(CancellationToken.None));
    }

    /// <summary>A source whose disposal fails, as a broker client's can.</summary>
    private sealed class SourceThatFailsToDispose() : IngestSource("failing", "kafka", new MappingRules())
    {
        public override Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public override Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public override SourceStatus GetStatus() => throw new NotSupportedException();

        public override ValueTask DisposeAsync() => throw new InvalidOperationException("client handle already destroyed");
    }
}
