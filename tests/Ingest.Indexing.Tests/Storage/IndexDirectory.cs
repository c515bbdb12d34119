namespace Ingest.Indexing.Tests.Storage;

/// <summary>A fresh temporary directory for one index, deleted on dispose.</summary>
internal sealed class IndexDirectory : IDisposable
{
    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"ingest-index-test-{Guid.NewGuid():N}");

    public void Dispose()
    {
        if (Directory.Exists(Path))
        {
            Directory.Delete(Path, recursive: true);
        }
    }
}
