using Ingest.Documents;

namespace Ingest.Server.Cluster;

/// <summary>
/// Cluster mode for the life of the host: at start, the topics (created or checked), the applied positions loaded from
/// the store, then the applier; at stop, the producer's queue sent and the applier drained. The container disposes both.
/// </summary>
internal sealed partial class ClusterService(
    ClusterOptions options, ClusterTopics topics, ClusterAppliedPositions applied, ClusterApplier applier, KafkaClusterLog log, DocumentStore store,
    ILogger<ClusterService> logger) : IHostedService
{
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var partitions = await topics.EnsureAsync(cancellationToken).ConfigureAwait(false);
        applied.Initialize(partitions, store.GetSourcePositions(ClusterApplier.Origin(options)));
        applier.Start();
        LogStarted(logger, options.Node!, options.Topic, partitions);
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        log.Flush(TimeSpan.FromSeconds(5));
        await applier.StopAsync(cancellationToken).ConfigureAwait(false);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Cluster: node '{Node}' applies '{Topic}' ({Partitions} partitions)")]
    private static partial void LogStarted(ILogger logger, string node, string topic, int partitions);
}
