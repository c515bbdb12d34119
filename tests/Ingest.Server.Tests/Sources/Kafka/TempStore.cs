using Ingest.Documents;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>A document store in its own temporary directory, deleted afterwards.</summary>
internal sealed class TempStore : IDisposable
{
    public TempStore()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"ingest-kafka-{Guid.NewGuid():N}");
        Store = DocumentStore.Open(Path);
    }

    public string Path { get; }

    public DocumentStore Store { get; }

    public void Dispose()
    {
        Store.Dispose();
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
