namespace Ingest.Indexing.Storage;

/// <summary>
/// The key a document id has in an index's "docs" tree (see <see cref="IndexLayout"/>): folded like the document
/// store's id keys, so casing does not make another document. Queries compare and order ids by it.
/// </summary>
public static class IndexDocumentKey
{
    /// <summary>Writes the key of <paramref name="documentId"/> and returns its length, or -1 when it is longer than a key may be.</summary>
    public static int Write(ReadOnlySpan<char> documentId, Span<byte> destination) =>
        Ingest.Documents.Ids.IdKey.MaxKeyBytes(documentId.Length) <= destination.Length ? Ingest.Documents.Ids.IdKey.Fold(documentId, destination) : -1;

    /// <summary><see cref="Write(ReadOnlySpan{char}, Span{byte})"/> of a UTF-8 id.</summary>
    public static int Write(ReadOnlySpan<byte> documentIdUtf8, Span<byte> destination)
    {
        if (documentIdUtf8.Length > 1024)
        {
            return -1;
        }

        Span<char> chars = stackalloc char[documentIdUtf8.Length];
        return Write(chars[..System.Text.Encoding.UTF8.GetChars(documentIdUtf8, chars)], destination);
    }
}
