using System.Buffers;
using Ingest.Documents.Records;
using Ingest.Storage.Trees;
using ZstdSharp;

namespace Ingest.Documents.Compression;

/// <summary>
/// Turns stored compressed bodies back into JSON, into one buffer it owns (pooled): the span it returns is
/// valid until the next body it decodes, which is why a <see cref="DocumentReader"/> documents the same rule
/// for <see cref="DocumentView.Body"/>. Decoding the same etag twice in a row (a projection reading several
/// fields) decompresses once. Not thread-safe: one per reader (and one on the writer thread).
/// </summary>
internal sealed class BodyDecoder(DecompressorPool pool) : IDisposable
{
    private byte[] _buffer = [];
    private long _etag = -1;
    private int _length;
    private uint _dictionaryId;
    private Decompressor? _decompressor;

    /// <summary>The JSON of the compressed <paramref name="stored"/> body of the document at <paramref name="etag"/>.</summary>
    /// <exception cref="InvalidDataException">The body does not decompress to its recorded length, or its dictionary is missing.</exception>
    public ReadOnlySpan<byte> Decode(long etag, ReadOnlySpan<byte> stored, Tree? dictionaries)
    {
        if (etag == _etag)
        {
            return _buffer.AsSpan(0, _length);
        }

        _etag = -1;
        var header = CompressedBodyHeader.Read(stored);
        if (header.UncompressedLength < 0)
        {
            throw new InvalidDataException($"The compressed document at etag {etag} records a length of {header.UncompressedLength} bytes.");
        }

        if (_buffer.Length < header.UncompressedLength)
        {
            Release();
            _buffer = ArrayPool<byte>.Shared.Rent(header.UncompressedLength);
        }

        if (_decompressor == null || _dictionaryId != header.DictionaryId)
        {
            if (_decompressor != null)
            {
                pool.Return(_dictionaryId, _decompressor);
                _decompressor = null;
            }

            _decompressor = pool.Rent(header.DictionaryId, dictionaries);
            _dictionaryId = header.DictionaryId;
        }

        int written;
        try
        {
            written = _decompressor.Unwrap(stored[CompressedBodyHeader.Size..], _buffer.AsSpan(0, header.UncompressedLength));
        }
        catch (ZstdException ex)
        {
            throw new InvalidDataException($"The compressed document at etag {etag} does not decompress with dictionary {header.DictionaryId}: {ex.Message}", ex);
        }

        if (written != header.UncompressedLength)
        {
            throw new InvalidDataException($"The compressed document at etag {etag} decompresses to {written} bytes; its header says {header.UncompressedLength}.");
        }

        _etag = etag;
        _length = written;
        return _buffer.AsSpan(0, written);
    }

    /// <summary>
    /// Forgets which etag the buffer holds and gives back its decompression context (a rolled-back transaction gives its
    /// etags and dictionary ids again, so neither may be reused by the next one).
    /// </summary>
    public void Reset()
    {
        _etag = -1;
        ReturnDecompressor();
    }

    public void Dispose()
    {
        Release();
        ReturnDecompressor();
    }

    private void ReturnDecompressor()
    {
        if (_decompressor != null)
        {
            pool.Return(_dictionaryId, _decompressor);
            _decompressor = null;
        }
    }

    private void Release()
    {
        if (_buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
        }

        _etag = -1;
    }
}
