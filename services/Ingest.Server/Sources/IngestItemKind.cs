namespace Ingest.Server.Sources;

/// <summary>What a consumed message does to the store.</summary>
public enum IngestItemKind : byte
{
    Put,
    Delete,
    DeadLetter,

    /// <summary>What a source's transform returned: zero or more puts and deletes, in <see cref="IngestItem.Operations"/>.</summary>
    Transformed,
}
