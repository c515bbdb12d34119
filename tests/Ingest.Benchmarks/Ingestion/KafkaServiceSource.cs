using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Microsoft.Extensions.Logging;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>The service's own Kafka source, constructed directly with default batching, as the host would.</summary>
internal static class KafkaServiceSource
{
    public static IngestSource Create(string bootstrapServers, string topic, DocumentStore store, ILoggerFactory loggerFactory)
    {
        var options = new KafkaSourceOptions
        {
            Name = "bench-kafka",
            BootstrapServers = bootstrapServers,
            Topics = [topic],
            GroupId = KafkaPreload.GroupFor(topic, "ingest"),
            Collection = ProfileDocuments.Collection,

            // A fresh group must start at the beginning of the pre-loaded topic.
            Settings = { ["auto.offset.reset"] = "earliest" },
        };
        return new KafkaSource(options.Name, options, store, new BatchingOptions(), loggerFactory, TimeProvider.System);
    }
}
