using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage;

/// <summary>
/// The flusher: the background thread that writes committed page versions no reader still needs into the data file,
/// syncs it and lets journal files go; after a full disk it also retries the journal. The locks it takes, and in which
/// order, are described on the class's main part.
/// </summary>
public sealed unsafe partial class StorageEnvironment
{
    private void FlushLoop()
    {
        while (!_stopping)
        {
            _flushSignal.WaitOne(_options.FlushInterval);
            if (_stopping)
            {
                break;
            }

            try
            {
                if (_journalFull != null)
                {
                    ProbeJournal();
                }

                Flush(ignoreReaders: false);
                _flushFull = null;
            }
            catch (IOException ex) when (DiskFullException.IsDiskFull(ex))
            {
                // Flushing is idempotent and the pages stay in scratch memory and the journal: retry
                // at the next interval. Commits go on meanwhile as long as the journal has room.
                _flushFull = new DiskFullException(_data.Path, ex, (long)UnflushedPageCount * PageHeader.PageSize);
            }
#pragma warning disable CA1031 // Any other failure stops flushing; the next BeginWrite reports it.
            catch (Exception ex)
#pragma warning restore CA1031
            {
                _flushError = ex;
                return;
            }
        }
    }

    /// <summary>
    /// After a journal write failed for lack of space: redo its cleanup (or the file creation that
    /// failed) while no commit runs; success means the next commit will find room.
    /// </summary>
    private void ProbeJournal()
    {
        if (!_writerLock.Wait(0))
        {
            return; // a commit is running; its outcome sets or clears the state
        }

        try
        {
            if (_journalFull != null)
            {
                _journal.Probe();
                _journalFull = null;
            }
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex))
        {
            // Still full; the next interval tries again. The new failure has the free space as it is now.
            _journalFull = ex as DiskFullException ?? new DiskFullException(Directory, ex);
        }
        finally
        {
            _writerLock.Release();
        }
    }

    /// <summary>Writes committed pages no reader still needs to the data file and syncs it (tests call it directly).</summary>
    internal void FlushNow() => Flush(ignoreReaders: false);

    /// <summary>
    /// Writes to the data file every page version committed up to F, the oldest snapshot an active
    /// transaction reads (so no reader finds a newer version in the data file than it should),
    /// syncs it, removes those versions from the page table, records F in the header and deletes
    /// journal files holding only transactions up to F.
    /// </summary>
    private void Flush(bool ignoreReaders)
    {
        lock (_flushLock)
        {
            // Pin like a reader so the scratch pages written below stay alive: at the header's tx, not the
            // current one, because a page's newest version up to the flush point may already be superseded
            // (and retired) by a later commit. A version retired before this slot exists was retired
            // because no reader was older than its successor, so the flush point is past it and it is not
            // collected (see PageTable.CollectFlushable).
            var slot = _slots.Acquire(_data.Header.LastAppliedTx, out var token);
            try
            {
                var snapshot = Volatile.Read(ref _current);
                var oldest = ignoreReaders ? ReaderSlots.Free : _slots.Oldest(exceptSlot: slot);
                var upTo = Math.Min(snapshot.TxId, oldest);
                if (upTo <= _data.Header.LastAppliedTx)
                {
                    return;
                }

                _flushList.Clear();
                snapshot.Table.CollectFlushable(snapshot.TxId, upTo, _flushList, out var end);

                if (_flushList.Count > 0)
                {
                    // Older versions first: a page reused inside a newer overflow run, or the reverse, ends up right.
                    _flushList.Sort(static (a, b) => a.TxId != b.TxId ? a.TxId.CompareTo(b.TxId) : a.Page.CompareTo(b.Page));
                    var replacedMap = _data.EnsureCapacity(end);
                    var map = _data.Map;
                    foreach (var e in _flushList)
                    {
                        _data.WritePages(e.Page, (byte*)e.Pointer, e.Pages);
                        map.MarkVerified(e.Page);
                    }

                    _data.Sync();
                    PopulateFlushed(map);
                    var removed = _flushRemoved;
                    removed.Clear();
                    long retireTx, epoch;
                    lock (_publishLock)
                    {
                        // Every snapshot shares the table and reads the data file's current mapping, so
                        // unlinking the versions the data file now holds publishes the flush.
                        var current = _current;
                        _flushUnlinked.Clear();
                        current.Table.RemoveFlushed(_flushList, removed, _flushUnlinked);
                        retireTx = current.TxId + 1;
                        epoch = _slots.AdvanceEpoch(); // at once: a transaction begun in between would pin them
                        if (current.Table.DetachReplaced() is { } rebuilt)
                        {
                            _reclamation.RetireSlots(rebuilt, epoch);
                        }
                    }

                    _reclamation.RetireFlushed(removed, _flushUnlinked, epoch, flushSlot: slot);
                    if (replacedMap != null)
                    {
                        _reclamation.RetireMap(replacedMap, retireTx);
                    }
                }

                var firstNeeded = _journal.FirstNeededSequence(upTo);
                _data.UpdateHeader(upTo, firstNeeded);
                _journal.ReleaseBefore(firstNeeded);
            }
            finally
            {
                _slots.Release(slot, token);
            }
        }

        _reclamation.FreeRetired();
    }

    /// <summary>Maps the pages just flushed into the data file's mapping, one call per run of consecutive pages.</summary>
    private void PopulateFlushed(DataMap map)
    {
        long start = -1, end = -1;
        foreach (var e in _flushList)
        {
            if (e.Page != end)
            {
                map.Populate(start, end - start);
                start = e.Page;
            }

            end = e.Page + e.Pages;
        }

        map.Populate(start, end - start);
    }
}
