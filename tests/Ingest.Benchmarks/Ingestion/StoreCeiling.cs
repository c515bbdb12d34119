using System.Diagnostics;
using System.Globalization;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Storage;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// A reference line, not part of the table: the same documents written straight into a fresh
/// durable store in batches of the default batch size, one batch at a time as the batch writer
/// does. No broker, no mapping: the most a source can ingest on this machine.
/// </summary>
internal static class StoreCeiling
{
    public static async Task RunAsync(string directory, string label, int count, int seed)
    {
        var batchSize = new BatchingOptions().MaxMessages;
        var generator = new ProfileDocuments(seed);
        var documents = new (string Id, byte[] Body)[count];
        long bytes = 0;
        for (var i = 0; i < count; i++)
        {
            documents[i] = generator.Next();
            bytes += documents[i].Body.Length;
        }

        Directory.CreateDirectory(directory);
        try
        {
            using var store = DocumentStore.Open(directory, new DocumentStoreOptions { Storage = new StorageOptions { SyncMode = SyncMode.Durable } });
            var batch = new WriteBatch();
            var started = Stopwatch.GetTimestamp();
            for (var from = 0; from < count; from += batchSize)
            {
                batch.Clear();
                var to = Math.Min(count, from + batchSize);
                for (var i = from; i < to; i++)
                {
                    batch.Put(documents[i].Id, ProfileDocuments.Collection, documents[i].Body);
                }

                await store.WriteAsync(batch).ConfigureAwait(false);
            }

            var seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            Console.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"[store-only] {label,-16} {count,10:N0} docs {count / seconds,12:N0} docs/s {bytes / seconds / 1e6,7:N1} MB/s {seconds,7:N2} s (the same documents written directly, {batchSize:N0} per durable batch, one batch at a time: the ceiling for ingest)"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
