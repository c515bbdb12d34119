namespace Ingest.Documents;

/// <summary>Flags stored with a document or tombstone.</summary>
[Flags]
public enum DocumentFlags : uint
{
    None = 0,

    /// <summary>A tombstone: the document was deleted at this etag.</summary>
    Deleted = 1,
}
