using Ingest.Storage;

namespace Ingest.Documents.Tests;

/// <summary>A fresh directory under the temp folder, deleted on dispose.</summary>
internal sealed class TestDirectory : IDisposable
{
    public TestDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "ingest-documents-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    /// <summary>Options for tests: no sync (fast) unless asked, small journal files, frequent flushing.</summary>
    public static DocumentStoreOptions Options(SyncMode sync = SyncMode.NoSyncUnsafe) => new()
    {
        Storage = new StorageOptions
        {
            SyncMode = sync,
            JournalFileSize = 1024 * 1024,
            FlushInterval = TimeSpan.FromMilliseconds(50),
            FlushThresholdPages = 512,
        },
    };

    public DocumentStore Open(SyncMode sync = SyncMode.NoSyncUnsafe) => DocumentStore.Open(Path, Options(sync));

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
