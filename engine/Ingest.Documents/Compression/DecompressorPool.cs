using System.Collections.Concurrent;
using Ingest.Documents.Records;
using Ingest.Storage.Trees;
using ZstdSharp;
using ZstdSharp.Unsafe;

namespace Ingest.Documents.Compression;

/// <summary>
/// Zstd decompression contexts with their dictionary loaded, shared by the store's readers: loading a
/// dictionary digests it (tens of microseconds), so a reader rents a ready context for the dictionary id
/// it meets and returns it when it moves to another dictionary or is disposed. Dictionary ids are never
/// reused, so a context for an id is right for every snapshot that has that id; a dictionary dropped from
/// the store is dropped from here too (a reader of an older snapshot that still sees it loads it again
/// from its snapshot). Thread-safe.
/// </summary>
internal sealed class DecompressorPool : IDisposable
{
    private const int MaxIdlePerDictionary = 8;

    private readonly ConcurrentDictionary<uint, ConcurrentBag<Decompressor>> _idle = new();
    private volatile bool _disposed;

    /// <summary>A context for dictionary <paramref name="id"/> (0: none), loaded from <paramref name="dictionaries"/> on a miss.</summary>
    public Decompressor Rent(uint id, Tree? dictionaries)
    {
        if (_idle.TryGetValue(id, out var bag) && bag.TryTake(out var ready))
        {
            return ready;
        }

        var decompressor = new Decompressor();
        try
        {
            decompressor.SetParameter(ZSTD_dParameter.ZSTD_d_experimentalParam1, (int)ZSTD_format_e.ZSTD_f_zstd1_magicless);
            if (id != 0)
            {
                decompressor.LoadDictionary(LoadDictionary(id, dictionaries));
            }
        }
        catch
        {
            decompressor.Dispose();
            throw;
        }

        return decompressor;
    }

    public void Return(uint id, Decompressor decompressor)
    {
        var bag = _idle.GetOrAdd(id, static _ => []);
        if (_disposed || bag.Count >= MaxIdlePerDictionary)
        {
            decompressor.Dispose();
            return;
        }

        bag.Add(decompressor);
    }

    /// <summary>Forgets the contexts of a dictionary the store no longer holds.</summary>
    public void Drop(uint id)
    {
        if (_idle.TryRemove(id, out var bag))
        {
            while (bag.TryTake(out var decompressor))
            {
                decompressor.Dispose();
            }
        }
    }

    /// <summary>Forgets every context.</summary>
    public void Clear()
    {
        foreach (var id in _idle.Keys)
        {
            Drop(id);
        }
    }

    public void Dispose()
    {
        _disposed = true;
        Clear();
    }

    /// <summary>The bytes of dictionary <paramref name="id"/> in this snapshot; a missing one is damage.</summary>
    public static byte[] LoadDictionary(uint id, Tree? dictionaries) =>
        DictionaryRecord.Load(dictionaries, id) ?? throw new InvalidDataException($"A compressed document names dictionary {id}, which the store does not hold.");
}
