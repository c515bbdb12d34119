using System.Collections.Concurrent;
using Ingest.Documents.Writing;

namespace Ingest.Documents.Compression;

/// <summary>
/// Compresses a validated batch's bodies on the caller's thread, before it is queued, so the one writer thread
/// spends no time on them (and a caller compresses its next batch while the writer commits the last). Each put
/// uses its collection's current dictionary as the writer last published it; the writer checks that the
/// dictionary still exists when it applies the put (recompressing on its own thread if not: a retraining in
/// between is harmless). The compressed body goes into the batch's buffer after its payloads and keys.
/// Thread-safe: contexts are rented per batch.
/// </summary>
internal sealed class BatchCompressor(DocumentStoreOptions options, Func<uint, byte[]?> load) : IDisposable
{
    private const int MaxIdle = 8;

    private readonly ConcurrentDictionary<string, uint> _current = new(StringComparer.Ordinal);
    private readonly ConcurrentBag<BodyCompressor> _idle = [];

    /// <summary>Called by the writer when it learns or changes a collection's current dictionary.</summary>
    public void Publish(string foldedCollection, uint dictionaryId) => _current[foldedCollection] = dictionaryId;

    public void Compress(WriteBatch batch)
    {
        if (!options.Compression)
        {
            return;
        }

        var compressor = _idle.TryTake(out var idle) ? idle : new BodyCompressor(options, load);
        try
        {
            var operations = batch.Operations;
            for (var i = 0; i < operations.Count; i++)
            {
                var op = operations[i];
                if (op.Kind != OperationKind.Put)
                {
                    continue;
                }

                op.StoredLength = 0;
                op.CompressionTried = true;
                var json = batch.Bytes(op.PayloadOffset, op.PayloadLength);
                var limit = compressor.Limit(json);
                var dictionaryId = _current.GetValueOrDefault(op.CollectionName!.Folded);
                op.StoredDictionary = dictionaryId;
                if (limit > 0)
                {
                    if (dictionaryId != 0 && !compressor.CanUse(dictionaryId))
                    {
                        dictionaryId = 0; // published but not committed (or dropped since): no dictionary this time
                        op.StoredDictionary = 0;
                    }

                    var destination = batch.ReserveKey(limit, out var offset);
                    var stored = compressor.CompressInto(json, dictionaryId, destination);
                    if (!stored.IsEmpty)
                    {
                        batch.AdvancePastKey(stored.Length);
                        op.StoredOffset = offset;
                        op.StoredLength = stored.Length;
                    }
                }

                batch.SetOperation(i, op);
            }
        }
        finally
        {
            if (_idle.Count < MaxIdle)
            {
                _idle.Add(compressor);
            }
            else
            {
                compressor.Dispose();
            }
        }
    }

    public void Dispose()
    {
        while (_idle.TryTake(out var compressor))
        {
            compressor.Dispose();
        }
    }
}
