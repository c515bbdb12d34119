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

    /// <summary>The stored body is a <c>CompressedBodyHeader</c> and a zstd frame, not raw JSON; readers see the JSON.</summary>
    Compressed = 4,

    /// <summary>
    /// The record holds the log position (topic, partition, offset) that produced it, after the expiry; readers see it
    /// as a <see cref="LogPosition"/>. Records written before positions existed never have the flag.
    /// </summary>
    Positioned = 8,
}
