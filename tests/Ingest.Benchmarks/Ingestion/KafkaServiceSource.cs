using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Microsoft.Extensions.Logging;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>The service's own Kafka source, constructed directly with default batching, as the host would.</summary>
internal static class KafkaServiceSource
{
    /// <summary>
    /// The simple transform the <c>kafka-ingest-transform</c> workload measures: one put per
    /// message, the document reshaped to a few of its fields.
    /// </summary>
    public const string ReshapeScript =
        "function transform(c, m) { return { id: m.key, body: { id: c.id, name: c.name.display, email: c.email, city: c.address.city, country: c.address.country, active: c.active } }; }";

    /// <param name="script">A transform for the source, or null for the header-driven mapping.</param>
    /// <param name="group">Names the consumer group apart from the other runs over the same topic (each must read it from the start).</param>
    public static IngestSource Create(string bootstrapServers, string topic, DocumentStore store, ILoggerFactory loggerFactory, string? script = null, string? group = null)
    {
        var options = new KafkaSourceOptions
        {
            Name = "bench-kafka",
            BootstrapServers = bootstrapServers,
            Topics = [topic],
            GroupId = KafkaPreload.GroupFor(topic, group ?? (script is null ? "ingest" : "ingest-transform")),
            Script = script,
            Collection = ProfileDocuments.Collection,

            // A fresh group must start at the beginning of the pre-loaded topic.
            Settings = { ["auto.offset.reset"] = "earliest" },
        };
        return new KafkaSource(options.Name, options, store, new BatchingOptions(), loggerFactory, TimeProvider.System);
    }
}
