namespace Ingest.Storage.Tests;

/// <summary>A fresh directory under the temp folder, deleted on dispose.</summary>
internal sealed class TestDirectory : IDisposable
{
    public TestDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "ingest-storage-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string DataFile => System.IO.Path.Combine(Path, "data.ingest");

    public string[] JournalFiles
    {
        get
        {
            var files = Directory.GetFiles(Path, "journal.*");
            Array.Sort(files, StringComparer.Ordinal);
            return files;
        }
    }

    /// <summary>Options for tests: no sync (fast), small journal files, and optionally no background flushing.</summary>
    public static StorageOptions Options(bool backgroundFlush = true, SyncMode sync = SyncMode.NoSyncUnsafe) => new()
    {
        SyncMode = sync,
        JournalFileSize = 256 * 1024,
        BackgroundFlush = backgroundFlush,
        FlushInterval = TimeSpan.FromMilliseconds(50),
        FlushThresholdPages = 256,
    };

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
