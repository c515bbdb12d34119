namespace Ingest.Documents.CrashWorker;

/// <summary>
/// What the worker writes, shared with the test that checks it (linked into the test project).
/// Partition p's batch n (its Kafka-like offset) puts <see cref="DocumentCount"/> documents
/// "p{p}/b{n}/{j}", deletes document 0 of batch n - <see cref="DeleteLag"/>, and sets the source
/// position of partition p to n + 1, all in one batch.
/// </summary>
internal static class CrashBatches
{
    public const string Source = "crash";
    public const string Collection = "Crash";
    public const int Partitions = 4;
    public const int DeleteLag = 10;

    public static int DocumentCount(int partition, long batch) => 2 + (int)(((partition * 7919L) + (batch * 104729L)) % 19);

    public static string Id(int partition, long batch, int document) => FormattableString.Invariant($"p{partition}/b{batch}/{document}");
}
