namespace Ingest.Benchmarks.Cluster;

/// <summary>How much each workload does: the quick run checks that everything works, the full one gives the figures.</summary>
internal sealed record ClusterSizes(int HttpWrites, int HttpWarmup, int HttpConcurrency, int KafkaMessages, int KafkaWarmup, int Failovers)
{
    public static ClusterSizes For(bool quick) => quick
        ? new ClusterSizes(HttpWrites: 1_500, HttpWarmup: 300, HttpConcurrency: 16, KafkaMessages: 20_000, KafkaWarmup: 2_000, Failovers: 1)
        : new ClusterSizes(HttpWrites: 15_000, HttpWarmup: 3_000, HttpConcurrency: 32, KafkaMessages: 200_000, KafkaWarmup: 20_000, Failovers: 6);
}
