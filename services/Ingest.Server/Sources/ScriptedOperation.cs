namespace Ingest.Server.Sources;

/// <summary>One document operation a source's transform returned for a message.</summary>
/// <param name="Kind"><see cref="IngestItemKind.Put"/> or <see cref="IngestItemKind.Delete"/>.</param>
/// <param name="Id">The document id.</param>
/// <param name="Collection">The collection of a put.</param>
/// <param name="Body">The JSON body of a put; null for a delete.</param>
public sealed record ScriptedOperation(IngestItemKind Kind, string Id, string? Collection, byte[]? Body)
{
    /// <summary>What the operation weighs for the batcher's byte limit.</summary>
    public int SizeBytes => (Body?.Length ?? 0) + (Id.Length * 2) + 32;
}
