using Ingest.Documents;
using Ingest.Server.Batching;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Sources;

/// <summary>
/// Runs the configured sources for the life of the host: starts them once the store is open,
/// and on shutdown stops them gracefully (stop consuming, write, acknowledge, close) within the
/// host's shutdown timeout.
/// </summary>
public sealed partial class IngestionService : IHostedService, IAsyncDisposable
{
    private readonly List<IngestSource> _sources = [];
    private readonly ILogger<IngestionService> _logger;

    public IngestionService(
        IOptions<SourcesOptions> sources, IOptions<BatchingOptions> batching, DocumentStore store, ILoggerFactory loggers, TimeProvider time,
        IOptions<Cluster.ClusterOptions> cluster)
    {
        ArgumentNullException.ThrowIfNull(sources);
        ArgumentNullException.ThrowIfNull(batching);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(loggers);
        ArgumentNullException.ThrowIfNull(cluster);
        _logger = loggers.CreateLogger<IngestionService>();
        var options = sources.Value;
        for (var i = 0; i < options.Kafka.Count; i++)
        {
            _sources.Add(new Kafka.KafkaSource(options.Kafka[i].EffectiveName(i), options.Kafka[i], store, batching.Value, loggers, time, cluster.Value));
        }

        for (var i = 0; i < options.RabbitMq.Count; i++)
        {
            _sources.Add(new RabbitMq.RabbitMqSource(options.RabbitMq[i].EffectiveName(i), options.RabbitMq[i], store, batching.Value, loggers, time));
        }
    }

    /// <summary>Runs the given sources (tests).</summary>
    internal IngestionService(IEnumerable<IngestSource> sources, ILogger<IngestionService> logger)
    {
        ArgumentNullException.ThrowIfNull(sources);
        ArgumentNullException.ThrowIfNull(logger);
        _sources.AddRange(sources);
        _logger = logger;
    }

    public IReadOnlyList<IngestSource> Sources => _sources;

    /// <summary>The source with this name (case-insensitive), if configured.</summary>
    public IngestSource? Find(string name)
    {
        foreach (var source in _sources)
        {
            if (string.Equals(source.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return source;
            }
        }

        return null;
    }

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (var source in _sources)
        {
            await source.StartAsync(cancellationToken).ConfigureAwait(false);
            LogStarted(_logger, source.Kind, source.Name);
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        var stops = new Task[_sources.Count];
        for (var i = 0; i < _sources.Count; i++)
        {
            stops[i] = StopOneAsync(_sources[i], cancellationToken);
        }

        await Task.WhenAll(stops).ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        // Each on its own: one that fails must not leave the others holding connections and threads.
        foreach (var source in _sources)
        {
            try
            {
                await source.DisposeAsync().ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                LogDisposeFailed(_logger, source.Kind, source.Name, ex);
            }
        }
    }

    private async Task StopOneAsync(IngestSource source, CancellationToken cancellationToken)
    {
        try
        {
            await source.StopAsync(cancellationToken).ConfigureAwait(false);
            LogStopped(_logger, source.Kind, source.Name);
        }
        catch (Exception ex)
        {
            LogStopFailed(_logger, source.Kind, source.Name, ex);
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "Source {Kind} '{Name}' failed while being disposed")]
    private static partial void LogDisposeFailed(ILogger logger, string kind, string name, Exception exception);

    [LoggerMessage(Level = LogLevel.Information, Message = "Source {Kind} '{Name}' started")]
    private static partial void LogStarted(ILogger logger, string kind, string name);

    [LoggerMessage(Level = LogLevel.Information, Message = "Source {Kind} '{Name}' stopped; everything it consumed is durable and acknowledged")]
    private static partial void LogStopped(ILogger logger, string kind, string name);

    [LoggerMessage(Level = LogLevel.Error, Message = "Source {Kind} '{Name}' did not stop cleanly; unacknowledged messages will be redelivered")]
    private static partial void LogStopFailed(ILogger logger, string kind, string name, Exception exception);
}
