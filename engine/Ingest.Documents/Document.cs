namespace Ingest.Documents;

/// <summary>A document (or, with <see cref="DocumentFlags.Deleted"/>, a tombstone) copied out of the store.</summary>
/// <param name="Id">The id in the casing it was written with.</param>
/// <param name="Collection">The collection in the casing it was written with.</param>
/// <param name="Etag">The etag of the put (or of the delete, for a tombstone).</param>
/// <param name="LastModified">When it was written (UTC).</param>
/// <param name="Flags">Flags.</param>
/// <param name="Body">The JSON body, UTF-8; empty for a tombstone.</param>
public sealed record Document(string Id, string Collection, long Etag, DateTime LastModified, DocumentFlags Flags, ReadOnlyMemory<byte> Body)
{
    /// <summary>When it expires (UTC), or null if it never does; for a tombstone, when the document expired if expiration deleted it.</summary>
    public DateTime? ExpiresAt { get; init; }

    /// <summary>The log position of the record that produced this version or delete (see <see cref="DocumentView.Position"/>), or null.</summary>
    public LogPosition? Position { get; init; }

    /// <summary>Whether this is a tombstone.</summary>
    public bool IsDeleted => (Flags & DocumentFlags.Deleted) != 0;
}
