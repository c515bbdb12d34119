using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Runtime;

/// <summary>One index in the catalog: the generation queries use and, during a rebuild, the one being built.</summary>
internal sealed record IndexCatalogEntry(
    string Name,
    long Generation,
    IndexDefinition Definition,
    long? PendingGeneration,
    IndexDefinition? PendingDefinition);
