using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.RabbitMq;
using Microsoft.Extensions.Logging;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>The service's own RabbitMQ source, constructed directly with default batching, as the host would.</summary>
internal static class RabbitMqServiceSource
{
    public static IngestSource Create(Uri uri, string queue, ushort prefetch, DocumentStore store, ILoggerFactory loggerFactory)
    {
        var options = new RabbitMqSourceOptions
        {
            Name = "bench-rabbitmq",
            Uri = uri.ToString(),
            Queues = [queue],
            Prefetch = prefetch,
            DeclareQueues = false,
            Collection = ProfileDocuments.Collection,
        };
        return new RabbitMqSource(options.Name, options, store, new BatchingOptions(), loggerFactory, TimeProvider.System);
    }
}
