using Ingest.Indexing.Definitions;

namespace Ingest.Server.Grafana;

/// <summary>A field a query can name: its path (or index field name) and its type.</summary>
internal sealed record CollectionField(string Name, IndexFieldType Type);
