using Ingest.Documents;

namespace Ingest.Server.Tests.Sources;

/// <summary>A durable document store in its own temporary directory, deleted afterwards.</summary>
internal sealed class TempDocumentStore : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), $"ingest-source-test-{Guid.NewGuid():N}");

    public TempDocumentStore() => Store = DocumentStore.Open(_directory);

    public DocumentStore Store { get; }

    public void Dispose()
    {
        Store.Dispose();
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
