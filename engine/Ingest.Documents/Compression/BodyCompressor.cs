using Ingest.Documents.Records;
using Ingest.Storage.Trees;
using ZstdSharp;
using ZstdSharp.Unsafe;

namespace Ingest.Documents.Compression;

/// <summary>
/// Compresses bodies on the writer thread: one zstd context per dictionary, made once and reused (the
/// dictionary digested once), and one output buffer. A body is stored compressed only when that saves at
/// least a sixteenth of it; the frame is capped at that size, so an incompressible body costs one failed
/// attempt and no copy. Frames are magicless and carry neither the content size nor the dictionary id:
/// <see cref="CompressedBodyHeader"/> has both. Not thread-safe.
/// </summary>
internal sealed class BodyCompressor(DocumentStoreOptions options) : IDisposable
{
    private const int LargeBufferBytes = 1024 * 1024;

    private readonly Dictionary<uint, Compressor> _contexts = [];
    private byte[] _output = new byte[4096];

    /// <summary>
    /// Compresses <paramref name="json"/> with dictionary <paramref name="dictionaryId"/> (0: none), read from
    /// <paramref name="dictionaries"/> the first time. Returns the stored body (header and frame, valid until
    /// the next call), or an empty span when the body is better stored raw.
    /// </summary>
    public ReadOnlySpan<byte> Compress(ReadOnlySpan<byte> json, uint dictionaryId, Tree? dictionaries)
    {
        if (json.Length < options.CompressionMinimumBytes)
        {
            return default;
        }

        var limit = json.Length - Math.Max(1, json.Length / 16);
        if (limit <= CompressedBodyHeader.Size)
        {
            return default;
        }

        if (_output.Length < limit)
        {
            _output = new byte[Math.Max(limit, _output.Length * 2)];
        }

        var context = Context(dictionaryId, dictionaries);
        if (!context.TryWrap(json, _output.AsSpan(CompressedBodyHeader.Size, limit - CompressedBodyHeader.Size), out var written))
        {
            return default; // did not fit in the saving we ask for: incompressible enough to store raw
        }

        var header = new CompressedBodyHeader { DictionaryId = dictionaryId, UncompressedLength = json.Length };
        RecordIO.Write(_output, in header);
        return _output.AsSpan(0, CompressedBodyHeader.Size + written);
    }

    /// <summary>Makes <paramref name="dictionary"/> the one of <paramref name="id"/> (an id a rolled-back training had is given again).</summary>
    public void Use(uint id, byte[] dictionary)
    {
        Forget(id);
        var context = NewContext();
        context.LoadDictionary(dictionary);
        _contexts[id] = context;
    }

    public void Forget(uint id)
    {
        if (_contexts.Remove(id, out var context))
        {
            context.Dispose();
        }
    }

    /// <summary>Lets go of a buffer a huge body grew.</summary>
    public void Trim()
    {
        if (_output.Length > LargeBufferBytes)
        {
            _output = new byte[4096];
        }
    }

    public void Dispose()
    {
        foreach (var context in _contexts.Values)
        {
            context.Dispose();
        }

        _contexts.Clear();
    }

    private Compressor Context(uint id, Tree? dictionaries)
    {
        if (_contexts.TryGetValue(id, out var context))
        {
            return context;
        }

        context = NewContext();
        if (id != 0)
        {
            context.LoadDictionary(DecompressorPool.LoadDictionary(id, dictionaries));
        }

        _contexts[id] = context;
        return context;
    }

    private Compressor NewContext()
    {
        var context = new Compressor(options.CompressionLevel);
        context.SetParameter(ZSTD_cParameter.ZSTD_c_experimentalParam2, (int)ZSTD_format_e.ZSTD_f_zstd1_magicless);
        context.SetParameter(ZSTD_cParameter.ZSTD_c_contentSizeFlag, 0);
        context.SetParameter(ZSTD_cParameter.ZSTD_c_dictIDFlag, 0);
        context.SetParameter(ZSTD_cParameter.ZSTD_c_checksumFlag, 0);
        return context;
    }
}
