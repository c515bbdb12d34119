namespace Ingest.Documents.Reading;

/// <summary>
/// A span into a read transaction's mapped pages, kept in a non-ref struct. Safe because those
/// pages stay mapped and unchanged until the read transaction ends (see Ingest.Storage's README).
/// </summary>
internal readonly unsafe struct ReadOnlySpanHolder
{
    private readonly byte* _pointer;
    private readonly int _length;

    public ReadOnlySpanHolder(ReadOnlySpan<byte> span)
    {
        fixed (byte* p = span)
        {
            _pointer = p;
        }

        _length = span.Length;
    }

    public ReadOnlySpan<byte> Span => new(_pointer, _length);
}
