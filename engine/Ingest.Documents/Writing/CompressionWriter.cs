using System.Text;
using Ingest.Documents.Compression;
using Ingest.Documents.Records;
using Ingest.Storage;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Trees;
using ZstdSharp;
using ZstdSharp.Unsafe;

namespace Ingest.Documents.Writing;

/// <summary>
/// The compression side of a write transaction: encodes bodies, keeps each collection's
/// <see cref="CompressionStateRecord"/> and each dictionary's reference count in step with the puts and
/// deletes of the same transaction, trains and retrains dictionaries, and drops one whose count reaches 0.
/// <para>
/// Ratio: every put with compression on adds its JSON and stored bytes to its collection's window. Once the
/// window holds <see cref="DocumentStoreOptions.DictionaryTrainingDocuments"/> puts, a collection without a
/// dictionary trains one; one with a dictionary retrains when the window's stored/JSON ratio is
/// <see cref="DocumentStoreOptions.DictionaryRetrainRatio"/> times worse than the ratio its dictionary reached on
/// its own training sample. Either way the window starts over. Training reads the collection's last
/// documents (the sample), trains, and keeps the new dictionary only if it beats no dictionary on that sample.
/// </para>
/// Writer thread only; reused across transactions.
/// </summary>
internal sealed class CompressionWriter : IDisposable
{
    private readonly BodyCompressor _compressor;
    // Training decodes with contexts of its own: a dictionary trained in a transaction that rolls back gives
    // its id again, so nothing loaded from an uncommitted tree may reach the readers' shared pool.
    private readonly DecompressorPool _trainingPool = new();
    private readonly BodyDecoder _decoder;
    private readonly Dictionary<uint, long> _referenceChanges = [];
    private readonly List<byte[]> _samples = [];
    private readonly List<byte[]> _heldOut = [];
    private WriteTransaction _tx = null!;
    private Tree? _states;
    private Tree? _dictionaries;
    private FixedSizeTree? _references;
    private readonly DocumentStoreOptions _options;
    private readonly DecompressorPool _pool;
    private readonly BatchCompressor _callers;
    private readonly HashSet<uint> _present = [];
    private readonly List<(string Folded, uint Id)> _trained = [];
    private long _nowTicks;

    public CompressionWriter(DocumentStoreOptions options, DecompressorPool pool, BatchCompressor callers)
    {
        _options = options;
        _pool = pool;
        _callers = callers;
        _compressor = new BodyCompressor(options, LoadDictionary);
        _decoder = new BodyDecoder(_trainingPool);
    }

    public void Begin(WriteTransaction tx, long nowTicks)
    {
        _tx = tx;
        _nowTicks = nowTicks;
        _states = null;
        _dictionaries = null;
        _references = null;
        _referenceChanges.Clear();
        _present.Clear();
        _trained.Clear(); // trained in a transaction that rolled back: never published
        _decoder.Reset();
        _trainingPool.Clear();
    }

    /// <summary>
    /// After the transaction committed: callers compress with the dictionaries it trained from now on. Published only
    /// now, since a caller that saw an uncommitted id could not load it and would look for it on every put.
    /// </summary>
    public void Committed()
    {
        foreach (var (folded, id) in _trained)
        {
            _callers.Publish(folded, id);
        }

        _trained.Clear();
    }

    /// <summary>
    /// The JSON of a stored body read in this transaction (decompressed when its record says so), for the writer's own
    /// reads of documents (re-stamping expiries): valid until the next body decoded here.
    /// </summary>
    public ReadOnlySpan<byte> Json(long etag, DocumentRecord header, ReadOnlySpan<byte> storedBody) =>
        (header.Flags & (uint)DocumentFlags.Compressed) == 0 ? storedBody : _decoder.Decode(etag, storedBody, Dictionaries);

    /// <summary>Reads a collection's state when a transaction first touches it.</summary>
    public void Load(CollectionEntry collection)
    {
        if (States.TryGet(collection.FoldedUtf8, out var value))
        {
            collection.Compression = RecordIO.Read<CompressionStateRecord>(value);
        }
        else
        {
            // Written before compression existed (or new): every body it holds is raw JSON.
            collection.Compression = new CompressionStateRecord { StoredBytes = collection.Stats.Bytes };
        }

        _callers.Publish(Encoding.UTF8.GetString(collection.FoldedUtf8), collection.Compression.DictionaryId);
    }

    /// <summary>
    /// The body to store for <paramref name="json"/>: compressed (and <paramref name="flags"/> has
    /// <see cref="DocumentFlags.Compressed"/>) or the JSON itself. The span is valid until the next call.
    /// </summary>
    /// <param name="collection">The put's collection.</param>
    /// <param name="json">The body as put.</param>
    /// <param name="op">The put: whether the caller's thread tried to compress it (<see cref="BatchCompressor"/>), with which dictionary.</param>
    /// <param name="precompressed">The body the caller's thread compressed, or empty (not tried, or stored raw because it does not pay).</param>
    /// <param name="flags">Compressed, or none.</param>
    public ReadOnlySpan<byte> Encode(CollectionEntry collection, ReadOnlySpan<byte> json, in BatchOperation op, ReadOnlySpan<byte> precompressed, out DocumentFlags flags)
    {
        flags = DocumentFlags.None;
        var stored = json;
        if (_options.Compression)
        {
            var current = collection.Compression.DictionaryId;
            var used = current;
            ReadOnlySpan<byte> compressed = default;
            if (!op.CompressionTried || (!precompressed.IsEmpty && op.StoredDictionary != 0 && !Present(op.StoredDictionary)))
            {
                compressed = _compressor.Compress(json, current); // not tried, or with a dictionary a retraining dropped since
            }
            else
            {
                compressed = precompressed;
                used = op.StoredDictionary;
            }

            if (!compressed.IsEmpty)
            {
                stored = compressed;
                flags = DocumentFlags.Compressed;
                Reference(used, +1);
            }

            // The window judges the current dictionary: bodies a caller compressed before it was trained do not count.
            if (used == current)
            {
                collection.Compression.WindowPuts++;
                collection.Compression.WindowJsonBytes += json.Length;
                collection.Compression.WindowStoredBytes += stored.Length;
            }
        }

        collection.Compression.StoredBytes += stored.Length;
        collection.CompressionDirty = true;
        return stored;
    }

    /// <summary>After a put: trains or retrains the collection's dictionary when its window is full and calls for it.</summary>
    public void AfterPut(CollectionEntry collection)
    {
        ref var state = ref collection.Compression;
        if (!_options.Compression || state.WindowPuts < _options.DictionaryTrainingDocuments)
        {
            return;
        }

        var windowPpm = state.WindowJsonBytes == 0 ? 1_000_000 : state.WindowStoredBytes * 1_000_000 / state.WindowJsonBytes;
        var due = state.DictionaryId == 0 || windowPpm > state.TrainedRatioPpm * _options.DictionaryRetrainRatio;
        state.WindowPuts = 0;
        state.WindowJsonBytes = 0;
        state.WindowStoredBytes = 0;
        if (due)
        {
            Train(collection);
        }
    }

    /// <summary>A live document leaves (deleted or replaced); returns its JSON length.</summary>
    public int Removed(CollectionEntry collection, DocumentRecord header, ReadOnlySpan<byte> storedBody)
    {
        collection.Compression.StoredBytes -= storedBody.Length;
        collection.CompressionDirty = true;
        if ((header.Flags & (uint)DocumentFlags.Compressed) == 0)
        {
            return storedBody.Length;
        }

        var compressed = CompressedBodyHeader.Read(storedBody);
        Reference(compressed.DictionaryId, -1);
        return compressed.UncompressedLength;
    }

    /// <summary>Writes the touched collections' states and reference counts; drops dictionaries no document uses.</summary>
    public void End(IEnumerable<CollectionEntry> collections)
    {
        foreach (var collection in collections)
        {
            if (collection.CompressionDirty)
            {
                States.Put(collection.FoldedUtf8, RecordIO.AsBytes(ref collection.Compression));
                collection.CompressionDirty = false;
            }
        }

        Span<byte> key = stackalloc byte[4];
        foreach (var (id, change) in _referenceChanges)
        {
            if (id == 0)
            {
                continue;
            }

            var count = References.TryGet(id, out var value) ? BitConverter.ToInt64(value) : 0;
            count += change;
            if (count < 0)
            {
                throw new InvalidDataException($"Dictionary {id} would be used by {count} documents; its reference count is damaged.");
            }

            if (count == 0 && !IsCurrent(id))
            {
                DictionaryRecord.WriteKey(key, id);
                Dictionaries.Delete(key);
                References.Delete(id);
                _present.Remove(id);
                _compressor.Forget(id);
                _pool.Drop(id);
            }
            else
            {
                References.Put(id, BitConverter.GetBytes(count));
            }
        }

        _compressor.Trim();
        _tx = null!;
    }

    public void Dispose()
    {
        _compressor.Dispose();
        _decoder.Dispose();
        _trainingPool.Dispose();
    }

    private Tree States => _states ??= _tx.CreateTree(TreeNames.Compression);

    private Tree Dictionaries => _dictionaries ??= _tx.CreateTree(TreeNames.Dictionaries);

    private FixedSizeTree References => _references ??= _tx.CreateFixedSizeTree(TreeNames.DictionaryReferences, sizeof(long));

    /// <summary>Whether dictionary <paramref name="id"/> is in the store (a caller may have compressed with one a retraining since dropped).</summary>
    private bool Present(uint id)
    {
        if (_present.Contains(id))
        {
            return true;
        }

        Span<byte> key = stackalloc byte[4];
        DictionaryRecord.WriteKey(key, id);
        if (!Dictionaries.TryGet(key, out _))
        {
            return false;
        }

        _present.Add(id);
        return true;
    }

    private byte[]? LoadDictionary(uint id) => DictionaryRecord.Load(Dictionaries, id);

    private void Reference(uint id, long change)
    {
        if (id != 0)
        {
            _referenceChanges[id] = _referenceChanges.GetValueOrDefault(id) + change;
        }
    }

    private bool IsCurrent(uint id)
    {
        Span<byte> key = stackalloc byte[4];
        DictionaryRecord.WriteKey(key, id);
        if (!Dictionaries.TryGet(key, out var value))
        {
            return false;
        }

        var folded = DictionaryRecord.Read(value).Collection(value);
        return States.TryGet(folded, out var state) && RecordIO.Read<CompressionStateRecord>(state).DictionaryId == id;
    }

    private void Train(CollectionEntry collection)
    {
        ref var state = ref collection.Compression;
        CollectSamples(collection);

        // Every fourth document is held out of training and measures the dictionary: measured on the documents
        // it learned from, a dictionary looks better than it will be on new ones, and the window would then
        // find it "degraded" at once.
        _heldOut.Clear();
        long jsonBytes = 0;
        for (var i = _samples.Count - 1; i >= 0; i--)
        {
            if (i % 4 == 3)
            {
                _heldOut.Add(_samples[i]);
                jsonBytes += _samples[i].Length;
                _samples.RemoveAt(i);
            }
        }

        if (_samples.Count < 10 || _heldOut.Count == 0)
        {
            _samples.Clear();
            return;
        }

        byte[] dictionary;
        try
        {
            var capacity = (int)Math.Clamp(jsonBytes * 3 / 8, 1024, _options.DictionaryBytes);
            // fastCover with fixed parameters (zstd's own defaults for d, f and k's midrange): one training pass, where
            // ZDICT_trainFromBuffer's search over k trains several times and took ~0.5 s for 1,000 orders here.
            var parameters = new ZDICT_fastCover_params_t
            {
                k = 200,
                d = 8,
                f = 20,
                steps = 1,
                splitPoint = 1.0,
                accel = 1,
                zParams = new ZDICT_params_t { compressionLevel = _options.CompressionLevel },
            };
            dictionary = DictBuilder.TrainFromBufferFastCover(_samples, parameters, capacity).ToArray();
        }
        catch (ZstdException)
        {
            // Samples zstd cannot learn from (too few distinct bytes): keep what there is and try at the next window.
            _samples.Clear();
            return;
        }

        var id = NextDictionaryId();
        _compressor.Use(id, dictionary);
        var withDictionary = Measure(id);
        var without = Measure(0);
        if (withDictionary >= without)
        {
            _compressor.Forget(id);
            state.TrainedRatioPpm = without * 1_000_000 / Math.Max(1, jsonBytes);
            _samples.Clear();
            return;
        }

        var folded = collection.FoldedUtf8;
        var value = new byte[DictionaryRecord.Size + folded.Length + dictionary.Length];
        var record = new DictionaryRecord { TrainedTicks = _nowTicks, SampleDocuments = _samples.Count, CollectionLength = (ushort)folded.Length };
        RecordIO.Write(value, in record);
        folded.CopyTo(value.AsSpan(DictionaryRecord.Size));
        dictionary.CopyTo(value.AsSpan(DictionaryRecord.Size + folded.Length));
        Span<byte> key = stackalloc byte[4];
        DictionaryRecord.WriteKey(key, id);
        Dictionaries.Put(key, value);
        References.Put(0, BitConverter.GetBytes((long)id));

        var previous = state.DictionaryId;
        state.DictionaryId = id;
        state.TrainedRatioPpm = withDictionary * 1_000_000 / Math.Max(1, jsonBytes);
        collection.CompressionDirty = true;
        _present.Add(id);
        _trained.Add((Encoding.UTF8.GetString(collection.FoldedUtf8), id)); // published once the transaction commits
        Reference(previous, 0); // checked at End: dropped there if no document uses it any more
        _referenceChanges.TryAdd(id, 0);
        _samples.Clear();
        _heldOut.Clear();
    }

    /// <summary>The JSON of the collection's last documents into the sample list.</summary>
    private void CollectSamples(CollectionEntry collection)
    {
        _samples.Clear();
        var byEtag = _tx.CreateTree(TreeNames.ByEtag);
        var cursor = collection.Etags.CreateCursor();
        Span<byte> key = stackalloc byte[EtagKey.Size];
        for (var ok = cursor.Last(); ok && _samples.Count < _options.DictionaryTrainingDocuments; ok = cursor.MovePrev())
        {
            EtagKey.Write(key, cursor.Key);
            if (!byEtag.TryGet(key, out var value))
            {
                continue;
            }

            var header = DocumentRecord.Read(value);
            var body = header.Body(value);
            if ((header.Flags & (uint)DocumentFlags.Compressed) != 0)
            {
                body = _decoder.Decode(cursor.Key, body, Dictionaries);
            }

            if (body.Length > 0 && body.Length <= 128 * 1024)
            {
                _samples.Add(body.ToArray());
            }
        }
    }

    /// <summary>Stored bytes of the held-out documents compressed with dictionary <paramref name="id"/> (raw where that does not pay).</summary>
    private long Measure(uint id)
    {
        long stored = 0;
        foreach (var sample in _heldOut)
        {
            var compressed = _compressor.Compress(sample, id);
            stored += compressed.IsEmpty ? sample.Length : compressed.Length;
        }

        return stored;
    }

    private uint NextDictionaryId()
    {
        var last = References.TryGet(0, out var value) ? BitConverter.ToInt64(value) : 0;
        if (last >= uint.MaxValue)
        {
            throw new InvalidOperationException("The store has given out every dictionary id.");
        }

        return (uint)(last + 1);
    }
}
