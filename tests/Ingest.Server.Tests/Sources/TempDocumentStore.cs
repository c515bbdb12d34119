using Ingest.Documents;

namespace Ingest.Server.Tests.Sources;

/// <summary>A durable document store in a <see cref="TestDirectory"/> of its own, deleted afterwards with what tests wrote beside it.</summary>
internal sealed class TempDocumentStore : IDisposable
{
    private readonly TestDirectory _directory = new();

    public TempDocumentStore() => Store = DocumentStore.Open(_directory.Combine("store"));

    public DocumentStore Store { get; }

    /// <summary>A path beside the store (not created), for a file the test writes next to it, such as an ETL error log.</summary>
    public string Beside(string name) => _directory.Combine(name);

    public void Dispose()
    {
        Store.Dispose();
        _directory.Dispose();
    }
}
