namespace Ingest.Documents;

/// <summary>Flags stored with a document or tombstone.</summary>
[Flags]
public enum DocumentFlags : uint
{
    None = 0,

    /// <summary>A tombstone: the document was deleted at this etag.</summary>
    Deleted = 1,

    /// <summary>
    /// The document expires: its record holds the expiry (UTC ticks) between the collection and the body.
    /// Reads stop returning it once that moment has passed; the expiration task deletes it.
    /// </summary>
    Expires = 2,
}
