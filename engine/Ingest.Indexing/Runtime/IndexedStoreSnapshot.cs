using Ingest.Documents;
using Ingest.Storage.Backup;

namespace Ingest.Indexing.Runtime;

/// <summary>
/// A document store snapshot with the index builds snapshotted in the same moment (see
/// <see cref="IndexSet.BeginBackupAsync"/>) and the index catalog of that moment. Dispose it once copied: the
/// snapshots hold back the flushers of their environments.
/// </summary>
public sealed class IndexedStoreSnapshot : IDisposable
{
    internal IndexedStoreSnapshot(DocumentReader store, byte[]? catalog)
    {
        Store = store;
        Catalog = catalog;
    }

    public DocumentReader Store { get; }

    /// <summary>Each build's directory name under the indexes directory, with its reader.</summary>
    public List<(string Directory, Storage.IndexReader Reader)> Indexes { get; } = [];

    /// <summary>The catalog file's bytes, or null when no index was ever created.</summary>
    public byte[]? Catalog { get; }

    /// <summary>
    /// Writes the store as <paramref name="storePath"/>, each build as <c>indexesPath/&lt;directory&gt;</c> and the
    /// catalog as <c>indexesPath/catalog.json</c>, the layout <see cref="IndexSet.OpenAsync"/> reads.
    /// </summary>
    public async Task WriteToAsync(BackupWriter backup, string storePath, string indexesPath, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(backup);
        await Store.WriteBackupAsync(backup, storePath, ct).ConfigureAwait(false);
        foreach (var (directory, reader) in Indexes)
        {
            await reader.WriteBackupAsync(backup, $"{indexesPath}/{directory}", ct).ConfigureAwait(false);
        }

        if (Catalog != null)
        {
            await backup.AddFileAsync($"{indexesPath}/{IndexCatalog.FileName}", Catalog, ct).ConfigureAwait(false);
        }
    }

    public void Dispose()
    {
        foreach (var (_, reader) in Indexes)
        {
            reader.Dispose();
        }

        Store.Dispose();
    }
}
