namespace Ingest.Server.Sources;

/// <summary>What a consumed message does to the store.</summary>
public enum IngestItemKind : byte
{
    Put,
    Delete,
    DeadLetter,
}
