using Ingest.Documents;
using Ingest.Server.Documents;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting;

/// <summary>The document store lives in the data directory's <c>store</c> folder, opened once per process.</summary>
internal static class StoreRegistration
{
    public const string StoreFolder = "store";

    public static IServiceCollection AddDocumentStore(this IServiceCollection services) =>
        services.AddSingleton(provider =>
        {
            var data = provider.GetRequiredService<DataDirectory>();
            var path = Path.Combine(data.FullPath, StoreFolder);
            var options = new DocumentStoreOptions { MaxBodyBytes = provider.GetRequiredService<IOptions<IngestOptions>>().Value.MaxDocumentBytes };
            provider.GetRequiredService<IOptions<DocumentCompressionOptions>>().Value.ApplyTo(options);
            if (provider.GetRequiredService<IOptions<StorageSettings>>().Value.CompactOnStart)
            {
                StartupCompaction.Run(data.FullPath, path, provider.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(StartupCompaction)));
            }

            try
            {
                return DocumentStore.Open(path, options);
            }
            catch (Ingest.Storage.StorageCorruptionException ex)
            {
                throw new InvalidOperationException(
                    $"The store in Ingest:DataDirectory '{path}' is corrupted: {ex.Message} (file {ex.FilePath}, offset {ex.Offset}). Restore it from a backup or move it aside; it is not repaired or skipped automatically. 'ingest verify' lists damaged pages; for a damaged journal, 'ingest recover --accept-loss' opens it keeping what is intact.", ex);
            }
        });
}
