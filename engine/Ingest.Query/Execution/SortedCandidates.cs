using System.Buffers;

namespace Ingest.Query.Execution;

/// <summary>
/// With <c>order by</c>: the matches in key order, a batch at a time. Each batch is a bounded top-k pass over the match
/// set for the entries after the previous batch's last (keyset), so <c>limit 10</c> over a million matches keeps 10
/// candidates; a batch runs out only when rows were left out (deleted documents, rows changed since the first page).
/// </summary>
internal sealed class SortedCandidates : EntryCandidates
{
    /// <summary>Matches whose keys are read together (one ordered column walk each).</summary>
    private const int ChunkSize = 1024;

    private readonly List<long> _matches;
    private readonly SortKeySource[] _keys;
    private readonly TopKHeap _heap;
    private readonly UInt128[] _anchorKeys;
    private readonly UInt128[] _scratch;
    private readonly UInt128[] _chunkKeys;
    private readonly int _nextBatch;
    private readonly CancellationToken _ct;
    private long _anchorEntry;
    private bool _hasAnchor;
    private int _position;
    private bool _batchWasFull;
    private bool _started;
    private int _batch;

    /// <summary><paramref name="ct"/> is the running query's: each batch is a pass over every match, checked a chunk at a time.</summary>
    public SortedCandidates(List<long> matches, SortKeySource[] keys, long? afterEntry, int firstBatch, int nextBatch, CancellationToken ct)
    {
        _ct = ct;
        _matches = matches;
        _keys = keys;
        _batch = Math.Min(firstBatch, matches.Count);
        _nextBatch = nextBatch;
        _heap = new TopKHeap(_batch, keys.Length);
        _anchorKeys = ArrayPool<UInt128>.Shared.Rent(keys.Length);
        _scratch = ArrayPool<UInt128>.Shared.Rent(keys.Length);
        _chunkKeys = ArrayPool<UInt128>.Shared.Rent(keys.Length * ChunkSize);
        if (afterEntry is { } after)
        {
            _hasAnchor = true;
            _anchorEntry = after;
            for (var i = 0; i < keys.Length; i++)
            {
                _anchorKeys[i] = keys[i].AnchorKey;
            }
        }
    }

    public override bool MayHaveMore => _position < _heap.Count || _batchWasFull || !_started;

    public override bool TryNext(out long entry)
    {
        if (_position == _heap.Count && (!_started || _batchWasFull))
        {
            Fill();
        }

        if (_position < _heap.Count)
        {
            entry = _heap.EntryAt(_position++);
            return true;
        }

        entry = 0;
        return false;
    }

    public override void Dispose()
    {
        _heap.Dispose();
        ArrayPool<UInt128>.Shared.Return(_anchorKeys);
        ArrayPool<UInt128>.Shared.Return(_scratch);
        ArrayPool<UInt128>.Shared.Return(_chunkKeys);
    }

    private void Fill()
    {
        if (_started)
        {
            // Resume after the last candidate of the previous batch.
            var last = _heap.Count - 1;
            _heap.KeysAt(last).CopyTo(_anchorKeys);
            _anchorEntry = _heap.EntryAt(last);
            _hasAnchor = true;
            _batch = Math.Min(_nextBatch, _matches.Count);
        }

        _started = true;
        _heap.Reset(_batch);
        var keyCount = _keys.Length;
        var keys = _scratch.AsSpan(0, keyCount);
        var anchor = _anchorKeys.AsSpan(0, keyCount);
        var matches = System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_matches);
        for (var start = 0; start < matches.Length; start += ChunkSize)
        {
            _ct.ThrowIfCancellationRequested();
            var chunk = matches.Slice(start, Math.Min(ChunkSize, matches.Length - start));
            for (var k = 0; k < keyCount; k++)
            {
                _keys[k].KeysOf(chunk, _chunkKeys.AsSpan(k * ChunkSize, chunk.Length));
            }

            for (var i = 0; i < chunk.Length; i++)
            {
                for (var k = 0; k < keyCount; k++)
                {
                    keys[k] = _chunkKeys[(k * ChunkSize) + i];
                }

                if (_hasAnchor && TopKHeap.Compare(keys, chunk[i], anchor, _anchorEntry) <= 0)
                {
                    continue;
                }

                _heap.Offer(chunk[i], keys);
            }
        }

        _heap.SortAscending();
        _position = 0;
        _batchWasFull = _batch > 0 && _heap.Count == _batch;
    }
}
