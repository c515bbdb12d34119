using System.Diagnostics;
using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Indexing.Storage;
using Ingest.Storage;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The Ingest side: reads the document store's changes feed after the index's last etag, extracts each order into
/// one reused <see cref="IndexBatch"/> and applies it with <see cref="IndexStorage"/> (one durable commit per batch),
/// closing batches by the rules of <see cref="BatchLimits"/> (the engine's Indexer's rules). The build and the
/// churn use it because it counts the engine's posting list work per batch and can apply postings one by one for
/// the comparison; the rebuilds run the engine's own loop (<see cref="IndexerRebuild"/>).
/// </summary>
internal sealed class IngestIndexer : IDisposable
{
    private readonly DocumentStore _store;
    private readonly IndexStorage _index;
    private readonly IndexBatch _batch;

    public IngestIndexer(DocumentStore store, string directory, bool postingsOneByOne = false)
    {
        _store = store;
        _index = IndexStorage.Open(directory, OrderIndex.Definition, new StorageOptions { SyncMode = SyncMode.Durable });
        _index.ApplyPostingsOneByOne = postingsOneByOne;
        _batch = _index.CreateBatch();
        Directory = directory;
    }

    public string Directory { get; }

    public long BatchesClosed { get; private set; }

    public long LargestBatch { get; private set; }

    public long PeakBatchBytes { get; private set; }

    /// <summary>Posting list updates and leaves merged over every batch applied so far (the engine's counters).</summary>
    public long PostingListUpdates { get; private set; }

    public long PostingListLeavesMerged { get; private set; }

    /// <summary>Indexes every change after the index's last etag; returns how many changes it read.</summary>
    public long CatchUp(BatchLimits limits)
    {
        long changes = 0;
        while (true)
        {
            var read = FillBatch(limits);
            if (read == 0)
            {
                // As the engine's Indexer does once it caught up: a new index's unjournaled build is written out and synced.
                if (_index.IsBuilding && !_index.TryFinishBuild())
                {
                    throw new InvalidOperationException("The index build could not be finished: a reader pins an older snapshot.");
                }

                return changes;
            }

            changes += read;
            _index.Apply(_batch);
            BatchesClosed++;
            LargestBatch = Math.Max(LargestBatch, read);
            PostingListUpdates += _index.LastApplyCounters.PostingListUpdates;
            PostingListLeavesMerged += _index.LastApplyCounters.PostingListLeavesMerged;
            _batch.Clear();
        }
    }

    /// <summary>The index's storage environment (to count its pages by tree).</summary>
    public StorageEnvironment Environment => _index.Environment;

    /// <summary>The index's live pages (every page reachable from its trees), in bytes.</summary>
    public long LiveBytes() => _index.Verify().PagesChecked * 8192;

    public void Dispose()
    {
        _batch.Dispose();
        _index.Dispose();
    }

    private int FillBatch(BatchLimits limits)
    {
        var started = Stopwatch.GetTimestamp();
        var count = 0;
        long idBytes = 0;
        using var reader = _store.BeginRead();
        foreach (var change in reader.GetChangesSince(_index.LastIndexedEtag))
        {
            if (!change.CollectionUtf8.SequenceEqual("Orders"u8))
            {
                continue;
            }

            var id = change.Id;
            idBytes += Indexer.StringOverheadBytes + (2L * id.Length);
            if (change.IsDeleted)
            {
                _batch.Delete(id, change.Etag);
            }
            else
            {
                _batch.Put(id, change.Etag, change.Body);
            }

            count++;
            var bytes = Indexer.EstimateBatchMemory(_batch, idBytes);
            PeakBatchBytes = Math.Max(PeakBatchBytes, bytes);
            if (count == limits.MaxDocuments || bytes >= limits.MemoryBudgetBytes || Stopwatch.GetElapsedTime(started) >= limits.MaxDuration)
            {
                break;
            }
        }

        return count;
    }
}
