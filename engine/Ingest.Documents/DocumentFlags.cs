namespace Ingest.Documents;

/// <summary>Flags stored with a document or tombstone.</summary>
[Flags]
public enum DocumentFlags : uint
{
    None = 0,

    /// <summary>A tombstone: the document was deleted at this etag.</summary>
    Deleted = 1,

    // 2 is Expires (the expiry field between the collection and the body).

    /// <summary>The stored body is a <c>CompressedBodyHeader</c> and a zstd frame, not raw JSON; readers see the JSON.</summary>
    Compressed = 4,
}
