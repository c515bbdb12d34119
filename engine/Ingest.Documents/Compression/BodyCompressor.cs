using Ingest.Documents.Records;
using ZstdSharp;
using ZstdSharp.Unsafe;

namespace Ingest.Documents.Compression;

/// <summary>
/// Compresses bodies on the writer thread: one zstd context per dictionary, made once and reused (the
/// dictionary digested once), and one output buffer. A body is stored compressed only when that saves at
/// least a sixteenth of it; the frame is capped at that size, so an incompressible body costs one failed
/// attempt and no copy. Frames are magicless and carry neither the content size nor the dictionary id:
/// <see cref="CompressedBodyHeader"/> has both. Not thread-safe: the writer has one, and callers' threads
/// rent them from <see cref="BatchCompressor"/>.
/// </summary>
/// <param name="options">The level and the smallest body compressed.</param>
/// <param name="load">A dictionary's bytes by id, the first time it is used; null when the store does not hold it.</param>
internal sealed class BodyCompressor(DocumentStoreOptions options, Func<uint, byte[]?> load) : IDisposable
{
    private const int MaxContexts = 8;

    private const int LargeBufferBytes = 1024 * 1024;

    private readonly Dictionary<uint, Compressor> _contexts = [];
    private byte[] _output = new byte[4096];

    /// <summary>
    /// Compresses <paramref name="json"/> with dictionary <paramref name="dictionaryId"/> (0: none). Returns the
    /// stored body (header and frame, valid until the next call), or an empty span when the body is better stored raw.
    /// </summary>
    /// <exception cref="InvalidDataException">The dictionary is not in the store.</exception>
    public ReadOnlySpan<byte> Compress(ReadOnlySpan<byte> json, uint dictionaryId)
    {
        var limit = Limit(json);
        if (limit == 0)
        {
            return default;
        }

        if (_output.Length < limit)
        {
            _output = new byte[Math.Max(limit, _output.Length * 2)];
        }

        return CompressInto(json, dictionaryId, _output.AsSpan(0, limit));
    }

    /// <summary>As <see cref="Compress(ReadOnlySpan{byte}, uint)"/>, into <paramref name="destination"/>, which must hold <see cref="Limit"/> bytes.</summary>
    public Span<byte> CompressInto(ReadOnlySpan<byte> json, uint dictionaryId, Span<byte> destination)
    {
        var limit = Limit(json);
        if (limit == 0 || destination.Length < limit)
        {
            return default;
        }

        var context = Context(dictionaryId);
        if (!context.TryWrap(json, destination[CompressedBodyHeader.Size..limit], out var written))
        {
            return default; // did not fit in the saving we ask for: incompressible enough to store raw
        }

        var header = new CompressedBodyHeader { DictionaryId = dictionaryId, UncompressedLength = json.Length };
        RecordIO.Write(destination, in header);
        return destination[..(CompressedBodyHeader.Size + written)];
    }

    /// <summary>The most a compressed body of <paramref name="json"/> may take (a sixteenth less than the JSON), or 0 when it is stored raw anyway.</summary>
    public int Limit(ReadOnlySpan<byte> json)
    {
        if (json.Length < options.CompressionMinimumBytes)
        {
            return 0;
        }

        var limit = json.Length - Math.Max(1, json.Length / 16);
        return limit <= CompressedBodyHeader.Size ? 0 : limit;
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

    /// <summary>Whether a context for <paramref name="id"/> is ready or its dictionary can be loaded.</summary>
    public bool CanUse(uint id)
    {
        try
        {
            Context(id);
            return true;
        }
        catch (InvalidDataException)
        {
            return false;
        }
    }

    private Compressor Context(uint id)
    {
        if (_contexts.TryGetValue(id, out var context))
        {
            return context;
        }

        var dictionary = id == 0 ? null : load(id) ?? throw new InvalidDataException($"Dictionary {id} is not in the store.");
        if (_contexts.Count >= MaxContexts)
        {
            Dispose(); // retrained many times since: start over with the dictionaries in use now
        }

        context = NewContext();
        if (dictionary != null)
        {
            context.LoadDictionary(dictionary);
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
