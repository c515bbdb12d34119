namespace Ingest.Benchmarks.Documents;

/// <summary>The systems the documents benchmark compares, by name.</summary>
internal static class DocumentSystems
{
    public static IReadOnlyList<(string Name, Func<string, IDocumentSystem> Open)> All { get; } =
    [
        ("ingest", directory => new IngestDocumentSystem(directory)),
        ("sqlite", directory => new SqliteDocumentSystem(directory)),
    ];
}
