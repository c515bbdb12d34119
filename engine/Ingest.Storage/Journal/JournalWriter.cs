using System.Runtime.CompilerServices;
using Ingest.Storage.Threading;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Journal;

/// <summary>
/// Appends commit records to journal files. Files are zero-filled when created so that a sync
/// after appending only flushes data blocks; a commit larger than a file gets a file of its own.
/// Files whose records are all in the data file are kept as spares (up to <see cref="MaxSpares"/>)
/// and renamed to the next sequence number when a new file is needed, which saves the zero-fill.
/// <para>
/// Files start small and follow the write rate (see <see cref="NextFileSize"/>): the first is
/// <see cref="StorageOptions.InitialJournalFileSize"/>, each next one twice its predecessor when that
/// filled within <see cref="GrowWithinMs"/>, up to <see cref="StorageOptions.JournalFileSize"/>, and half
/// of it (not below the initial size) when it took longer than <see cref="ShrinkAfterMs"/>. Every
/// environment (the store and each index) once paid a 64 MiB file before its first entry.
/// </para>
/// A recycled file still holds old records after the new ones, but those all have transaction ids
/// the data file header already covers, and recovery skips them.
/// <para>
/// A failed write or sync (a full disk) leaves the file's position where it was: the next record
/// (which takes the same transaction id, since the failed one was never published) overwrites
/// whatever part of the failed record reached the file. If the next record goes to a new file
/// instead, the failed record's first block is zeroed first, so recovery never finds two records
/// for one transaction. A file whose creation failed is deleted and its sequence number reused.
/// </para>
/// </summary>
internal sealed unsafe class JournalWriter : IDisposable
{
    private long _commitSyncs;
    private long _bytesWritten;

    private readonly string _directory;
    private readonly long _initialFileSize;
    private readonly long _maxFileSize;
    private long _nextFileSize;

    /// <summary>A file that filled faster than this is followed by one twice as large.</summary>
    internal const long GrowWithinMs = 10_000;

    /// <summary>A file that took longer than this to fill is followed by one half as large.</summary>
    internal const long ShrinkAfterMs = 10 * 60_000;
    private readonly bool _durable;
    private readonly ScratchMemory _memory;
    private readonly WriteFaults _faults;
    private readonly Action<long, long> _fileCreated;
    private const int MaxSpares = 2;
    private const long MaxRetainedBuffer = 16 * 1024 * 1024;
    private readonly List<JournalFile> _files = [];
    private readonly List<JournalFile> _spares = [];
    private readonly Lock _filesLock = new();
    private long _nextSequence;
    private long _heldBytes;
    private const int MaxRetainedVectors = 64 * 1024;
    private static readonly byte[] Zeros = GC.AllocateArray<byte>(JournalRecord.Alignment, pinned: true);

    // Shared and never written: a 1 MiB array per new journal file was most of what a batched commit allocated.
    private static readonly byte[] ZeroFill = new byte[256 * 1024];
    private byte* _buffer;
    private long _bufferSize;
    private byte* _diffs;
    private long _diffsSize;
    private int[] _diffLengths = new int[64];
    private long[] _diffSlots = new long[64];
    private readonly DiffEncoding _diffEncoding = new();

    /// <summary>Below this many pages to diff, one thread does it faster than two.</summary>
    private const int ParallelDiffPages = 128;
    private IoVector* _vectors;
    private int _vectorCapacity;
    private int _vectorCount;
    private JournalFile? _failedFile;
    private long _failedPosition;
    private bool _createFailed;

    /// <param name="initialFileSize">The size of the first file (and the least any file gets).</param>
    /// <param name="maxFileSize">The most a file gets unless one record needs more.</param>
    /// <param name="spares">Journal files whose records are all applied, to recycle.</param>
    /// <param name="fileCreated">Told (sequence, size) once a new file is ready and before any record goes in.</param>
    public JournalWriter(string directory, long initialFileSize, long maxFileSize, bool durable, ScratchMemory memory, long nextSequence, IEnumerable<string> spares, WriteFaults faults, Action<long, long> fileCreated)
    {
        _directory = directory;
        _faults = faults;
        _fileCreated = fileCreated;
        _initialFileSize = initialFileSize;
        _maxFileSize = Math.Max(initialFileSize, maxFileSize);
        _nextFileSize = initialFileSize;
        _durable = durable;
        _memory = memory;
        _nextSequence = nextSequence;
        foreach (var path in spares)
        {
            var handle = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite, FileShare.Read);
            _spares.Add(new JournalFile(0, path, handle, RandomAccess.GetLength(handle)));
        }
    }

    /// <summary>
    /// Makes the file the next record goes to ready now (a spare renamed, or a new file zero-filled
    /// and synced) instead of in the first commit: on this VM that first commit took 50-130 ms, a
    /// fifth of loading 40k documents into a fresh store. Best effort: if it fails, the first commit
    /// tries again and reports the error; a full disk is returned, so the store can say at once
    /// that it cannot write and how much space it needs (a caller that must know of any other
    /// failure calls <see cref="PrepareNextFile"/> itself).
    /// </summary>
    public DiskFullException? PrepareFirstFile()
    {
        lock (_filesLock)
        {
            if (_files.Count > 0)
            {
                return null;
            }
        }

        try
        {
            PrepareNextFile(_nextFileSize);
        }
        catch (DiskFullException full)
        {
            return full;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // CreateFile left nothing behind (a half-made file is deleted, a spare keeps its name).
        }

        return null;
    }

    /// <summary>The sequence number the next new journal file gets.</summary>
    public long NextSequence => _nextSequence;

    /// <summary>Bytes of the journal files that may still hold records the data file lacks (spares not counted).</summary>
    public long HeldBytes
    {
        get
        {
            lock (_filesLock)
            {
                return _heldBytes;
            }
        }
    }

    public int FileCount
    {
        get
        {
            lock (_filesLock)
            {
                return _files.Count;
            }
        }
    }

    /// <summary>Writes the record for <paramref name="pages"/> with one write, then one sync in durable mode.</summary>
    public void Append(long txId, ReadOnlySpan<PageVersion> pages)
    {
        EncodeDiffs(pages);
        var diffLengths = _diffLengths.AsSpan(0, pages.Length);
        var payloadLength = JournalRecord.PayloadLength(pages, diffLengths);
        var length = JournalRecord.TotalLength(pages.Length, payloadLength);
        var gathered = GatheredWrite.IsSupported;
        if (gathered)
        {
            PrepareGathered(txId, pages, diffLengths, payloadLength, length);
        }
        else
        {
            EnsureBuffer(length);
            JournalRecord.Build(_buffer, txId, pages, _diffs, diffLengths);
        }

        JournalFile? file;
        lock (_filesLock)
        {
            file = _files.Count > 0 ? _files[^1] : null;
        }

        if (file == null || file.Position + length > file.Length)
        {
            ClearFailedRecord();
            if (file != null)
            {
                _nextFileSize = NextFileSize(file.Length, Environment.TickCount64 - file.CreatedAtMs, _nextFileSize, _initialFileSize, _maxFileSize);
            }

            file = PrepareNextFile(Math.Max(_nextFileSize, length));
        }

        try
        {
            _faults.ThrowIfFailing(file.Path, journal: true);
            if (gathered)
            {
                GatheredWrite.Write(file.Handle, _vectors, _vectorCount, file.Position);
            }
            else
            {
                // One write call; only a record over 1 GiB (a huge transaction) takes several.
                for (long done = 0; done < length;)
                {
                    var chunk = (int)Math.Min(length - done, 1L << 30);
                    RandomAccess.Write(file.Handle, new ReadOnlySpan<byte>(_buffer + done, chunk), file.Position + done);
                    done += chunk;
                }
            }

            Interlocked.Add(ref _bytesWritten, length);

            _faults.ThrowIfSyncFailing(file.Path);
            if (_durable)
            {
                FileSync.DataSync(file.Handle);
                Interlocked.Increment(ref _commitSyncs);
            }
        }
        catch (IOException)
        {
            _failedFile = file;
            _failedPosition = file.Position;
            throw;
        }

        _failedFile = null; // overwritten by this record
        file.LastTxId = txId;
        file.Position += length; // after LastTxId: the flusher releases a full file whose last record is applied
        if (_bufferSize > MaxRetainedBuffer)
        {
            // A bulk load needed a huge record; do not keep that much memory for ordinary commits.
            _memory.Free(_buffer, _bufferSize);
            _buffer = null;
            _bufferSize = 0;
        }

        if (_vectorCapacity > MaxRetainedVectors)
        {
            FreeVectors();
        }

        if (_diffsSize > MaxRetainedBuffer)
        {
            _memory.Free(_diffs, _diffsSize);
            _diffs = null;
            _diffsSize = 0;
        }
    }

    /// <summary>
    /// Diffs each page that existed before the transaction against the version it was copied from,
    /// and keeps the diff where it is shorter than the page's image: a put into a big leaf changes a
    /// few hundred of its bytes, and the journal is what a commit writes and syncs. The diffs kept lie
    /// one after the other in page order in the diff buffer.
    /// </summary>
    private void EncodeDiffs(ReadOnlySpan<PageVersion> pages)
    {
        if (_diffLengths.Length < pages.Length)
        {
            var size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)pages.Length);
            _diffLengths = new int[size];
            _diffSlots = new long[size];
        }

        // Each page that existed before gets a slot as long as its image (a diff is kept only when
        // shorter), so pages can be encoded in any order, by two threads for a big commit.
        long slots = 0;
        var candidates = 0;
        for (var i = 0; i < pages.Length; i++)
        {
            ref readonly var page = ref pages[i];
            _diffLengths[i] = -1;
            _diffSlots[i] = -1;
            if (page.Pages == 1 && page.Base != 0)
            {
                _diffSlots[i] = slots;
                slots += ImageLength((byte*)page.Pointer);
                candidates++;
            }
        }

        EnsureDiffCapacity(slots);
        fixed (PageVersion* versions = pages)
        {
            if (candidates >= ParallelDiffPages)
            {
                _diffEncoding.Run(this, versions, pages.Length);
            }
            else
            {
                EncodeDiffs(versions, 0, pages.Length);
            }
        }

        // The diffs kept, one after the other in page order (each slot starts at or after where it moves to).
        long used = 0;
        for (var i = 0; i < pages.Length; i++)
        {
            var length = _diffLengths[i];
            if (length >= 0)
            {
                Buffer.MemoryCopy(_diffs + _diffSlots[i], _diffs + used, length, length);
                used += length;
            }
        }
    }

    private static int ImageLength(byte* page)
    {
        PageHole.Get(page, out var holeStart, out var holeEnd);
        return PageHeader.PageSize - (holeEnd - holeStart);
    }

    /// <summary>Diffs pages [from, to) into their slots. Thread-safe for distinct ranges.</summary>
    private void EncodeDiffs(PageVersion* pages, int from, int to)
    {
        for (var i = from; i < to; i++)
        {
            if (_diffSlots[i] >= 0)
            {
                var page = (byte*)pages[i].Pointer;
                _diffLengths[i] = PageDiff.Encode(page, (byte*)pages[i].Base, _diffs + _diffSlots[i], ImageLength(page));
            }
        }
    }

    /// <summary>
    /// Diffing is a tenth of a batched put's CPU when each commit rewrites ~1,000 random leaves of a
    /// big index (each compared whole with its previous version), and the committing thread is the
    /// one every caller waits for: a thread-pool thread takes half of the pages.
    /// </summary>
    private sealed class DiffEncoding : SharedChunkWork
    {
        private const int Chunk = 64;
        private JournalWriter? _writer;
        private PageVersion* _pages;
        private int _count;

        public void Run(JournalWriter writer, PageVersion* pages, int count)
        {
            _writer = writer;
            _pages = pages;
            _count = count;
            RunChunks((count + Chunk - 1) / Chunk);
            _writer = null;
            _pages = null;
        }

        protected override void RunChunk(int chunk) => _writer!.EncodeDiffs(_pages, chunk * Chunk, Math.Min(_count, (chunk + 1) * Chunk));
    }

    /// <summary>Room for <paramref name="needed"/> bytes of diffs, keeping the ones already encoded.</summary>
    private void EnsureDiffCapacity(long needed)
    {
        if (_diffsSize >= needed)
        {
            return;
        }

        var size = Math.Max(64 * 1024, (long)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)needed));
        var grown = _memory.Allocate(size);
        if (_diffs != null)
        {
            Buffer.MemoryCopy(_diffs, grown, size, _diffsSize);
            _memory.Free(_diffs, _diffsSize);
        }

        _diffs = grown;
        _diffsSize = size;
    }

    /// <summary>
    /// Lays the record out as pieces for <see cref="GatheredWrite"/>: the header and entries from the
    /// buffer, then each page's image straight from its scratch copy, then zeros up to the alignment.
    /// </summary>
    private void PrepareGathered(long txId, ReadOnlySpan<PageVersion> pages, ReadOnlySpan<int> diffLengths, long payloadLength, long length)
    {
        var headLength = JournalRecord.HeadLength(pages.Length);
        EnsureBuffer(headLength);
        EnsureVectors((2 * pages.Length) + 2);
        var vectors = _vectors;
        var n = 0;
        vectors[n++] = new IoVector { Base = _buffer, Length = (nuint)headLength };
        var diff = _diffs; // the diffs lie one after the other in page order (EncodeDiffs)
        for (var i = 0; i < pages.Length; i++)
        {
            ref readonly var page = ref pages[i];
            if (diffLengths[i] >= 0)
            {
                vectors[n++] = new IoVector { Base = diff, Length = (nuint)diffLengths[i] };
                diff += diffLengths[i];
                continue;
            }

            var source = (byte*)page.Pointer;
            JournalRecord.ImageParts(page, out var firstLength, out var tailStart);
            if (firstLength > 0)
            {
                vectors[n++] = new IoVector { Base = source, Length = (nuint)firstLength };
            }

            var tail = JournalRecord.ImageLength(page) - tailStart;
            if (tail > 0)
            {
                vectors[n++] = new IoVector { Base = source + tailStart, Length = (nuint)tail };
            }
        }

        JournalRecord.WriteHead(_buffer, txId, pages, diffLengths, payloadLength, PiecewiseChecksum.Compute(vectors + 1, n - 1, payloadLength));
        var padding = length - headLength - payloadLength;
        if (padding > 0)
        {
            vectors[n++] = new IoVector { Base = (byte*)Unsafe.AsPointer(ref Zeros[0]), Length = (nuint)padding };
        }

        _vectorCount = n;
    }

    private void EnsureVectors(int count)
    {
        if (_vectorCapacity >= count)
        {
            return;
        }

        FreeVectors();
        var capacity = Math.Max(64, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)count));
        _vectors = (IoVector*)_memory.Allocate((long)capacity * sizeof(IoVector));
        _vectorCapacity = capacity;
    }

    private void FreeVectors()
    {
        if (_vectors != null)
        {
            _memory.Free((byte*)_vectors, (long)_vectorCapacity * sizeof(IoVector));
            _vectors = null;
            _vectorCapacity = 0;
        }
    }

    private void EnsureBuffer(long length)
    {
        if (_bufferSize >= length)
        {
            return;
        }

        if (_buffer != null)
        {
            _memory.Free(_buffer, _bufferSize);
        }

        var size = Math.Max(64 * 1024, (long)System.Numerics.BitOperations.RoundUpToPowerOf2((ulong)length));
        _buffer = _memory.Allocate(size);
        _bufferSize = size;
    }

    /// <summary>
    /// After a failed append: redoes what that append could not do (zeroes the failed record's first
    /// block, or creates the next file), so the next commit can go ahead. Throws while the disk is
    /// still full. The caller holds the writer lock.
    /// </summary>
    public void Probe()
    {
        ClearFailedRecord();
        if (_createFailed)
        {
            PrepareNextFile(_nextFileSize);
        }
    }

    /// <summary>The size the file after one of <paramref name="filledLength"/> bytes gets, which filled in <paramref name="filledInMs"/>.</summary>
    internal static long NextFileSize(long filledLength, long filledInMs, long current, long initial, long max)
    {
        // A commit bigger than a file gets a file of its own, which says the rate is high but not by how much: growth
        // goes from the target, not from that file (a 3 MB bulk put made the next file 7 MB on a 3 MB store).
        var basis = Math.Clamp(Math.Min(filledLength, current), initial, max);
        if (filledInMs < GrowWithinMs)
        {
            return Math.Min(max, Math.Max(current, basis * 2));
        }

        return filledInMs > ShrinkAfterMs ? Math.Max(initial, Math.Min(current, basis) / 2) : Math.Max(initial, Math.Min(current, basis));
    }


    /// <summary>The size the next new journal file gets (tests and stats).</summary>
    internal long NextFileSizeTarget => _nextFileSize;

    private void ClearFailedRecord()
    {
        if (_failedFile is not { } file)
        {
            return;
        }

        _faults.ThrowIfFailing(file.Path, journal: true);
        RandomAccess.Write(file.Handle, new byte[JournalRecord.Alignment], _failedPosition);
        if (_durable)
        {
            FileSync.DataSync(file.Handle);
        }

        _failedFile = null;
    }

    /// <summary>
    /// Makes the next journal file ready: a spare of <paramref name="size"/> bytes renamed to the next
    /// sequence number, or a new file zero-filled and synced, and recorded in the data file's header.
    /// Throws <see cref="IOException"/> when it cannot (a full disk) and leaves nothing behind; the
    /// commit that needed it fails, and <see cref="Probe"/> tries again. The one place a journal file is made.
    /// </summary>
    public JournalFile PrepareNextFile(long size)
    {
        _createFailed = true;
        JournalFile file;
        try
        {
            file = CreateOrRecycleFile(size);
        }
        catch (IOException ex) when (DiskFullException.IsDiskFull(ex) && ex is not DiskFullException)
        {
            // The operator needs the size: freeing less than a whole journal file never lets writes resume.
            throw new DiskFullException(_directory, ex, size);
        }

        _createFailed = false;
        return file;
    }

    private JournalFile CreateOrRecycleFile(long size)
    {
        // The sequence number is only used up once the file exists: a gap in the numbers is damage.
        var sequence = _nextSequence;
        var path = Path.Combine(_directory, JournalFile.NameFor(sequence));
        JournalFile? spare = null;
        lock (_filesLock)
        {
            for (var i = _spares.Count - 1; i >= 0; i--)
            {
                if (_spares[i].Length == size)
                {
                    spare = _spares[i];
                    _spares.RemoveAt(i);
                    break;
                }
            }
        }

        if (spare != null)
        {
            // The rename must be durable before records go in: recovery orders files by name.
            try
            {
                File.Move(spare.Path, path);
                try
                {
                    if (_durable)
                    {
                        FileSync.SyncDirectory(_directory);
                    }

                    _fileCreated(sequence, spare.Length);
                }
                catch
                {
                    File.Move(path, spare.Path);
                    throw;
                }
            }
            catch
            {
                lock (_filesLock)
                {
                    _spares.Add(spare);
                }

                throw;
            }

            _nextSequence++;
            var recycled = new JournalFile(sequence, path, spare.Handle, spare.Length);
            lock (_filesLock)
            {
                _files.Add(recycled);
                _heldBytes += recycled.Length;
            }

            return recycled;
        }

        var handle = File.OpenHandle(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.Read);
        try
        {
            if (size <= _maxFileSize)
            {
                // Real zeros, not a sparse file: later syncs then have no block allocation to record.
                for (long offset = 0; offset < size; offset += ZeroFill.Length)
                {
                    _faults.ThrowIfFailing(path, journal: true);
                    RandomAccess.Write(handle, ZeroFill.AsSpan(0, (int)Math.Min(ZeroFill.Length, size - offset)), offset);
                }
            }
            else
            {
                RandomAccess.SetLength(handle, size);
            }

            if (_durable)
            {
                RandomAccess.FlushToDisk(handle);
                FileSync.SyncDirectory(_directory);
            }

            _fileCreated(sequence, size);
        }
        catch
        {
            // A short file left behind would look like a damaged journal to the next recovery.
            handle.Dispose();
            File.Delete(path);
            throw;
        }

        _nextSequence++;
        var file = new JournalFile(sequence, path, handle, size);
        lock (_filesLock)
        {
            _files.Add(file);
            _heldBytes += file.Length;
        }

        return file;
    }

    /// <summary>How many commit records were made durable with a sync (0 in the non-durable mode).</summary>
    public long CommitSyncs => Interlocked.Read(ref _commitSyncs);

    /// <summary>Bytes of commit records written to journal files since the writer was created.</summary>
    public long BytesWritten => Interlocked.Read(ref _bytesWritten);

    /// <summary>
    /// The first journal file that stays needed once the data file holds every transaction up to
    /// <paramref name="appliedTxId"/>: the oldest with a later record, or the one being written unless it is full
    /// (a commit larger than a file got one of its own: kept, it would hold its size until the next commit).
    /// </summary>
    public long FirstNeededSequence(long appliedTxId)
    {
        lock (_filesLock)
        {
            for (var i = 0; i < _files.Count; i++)
            {
                var file = _files[i];
                if (file.LastTxId > appliedTxId || (i == _files.Count - 1 && !file.IsFull))
                {
                    return file.Sequence;
                }
            }

            return _nextSequence;
        }
    }

    /// <summary>Recycles or deletes the journal files before <paramref name="firstNeeded"/> (see <see cref="FirstNeededSequence"/>).</summary>
    public void ReleaseBefore(long firstNeeded)
    {
        List<JournalFile>? deleted = null;
        lock (_filesLock)
        {
            for (var i = 0; i < _files.Count; i++)
            {
                var file = _files[i];

                // The last file only when full: no commit writes to it any more (the next one makes a new file).
                if (file.Sequence >= firstNeeded || (i == _files.Count - 1 && !file.IsFull))
                {
                    continue;
                }

                _files.RemoveAt(i);
                _heldBytes -= file.Length;
                i--;
                if (file.Length == _nextFileSize && _spares.Count < MaxSpares)
                {
                    _spares.Add(file);
                }
                else
                {
                    (deleted ??= []).Add(file);
                }
            }

            // Spares of a size the writer no longer makes would only hold disk.
            for (var i = _spares.Count - 1; i >= 0; i--)
            {
                if (_spares[i].Length != _nextFileSize)
                {
                    (deleted ??= []).Add(_spares[i]);
                    _spares.RemoveAt(i);
                }
            }
        }

        if (deleted == null)
        {
            return;
        }

        foreach (var f in deleted)
        {
            f.Dispose();
            File.Delete(f.Path);
        }
    }

    /// <summary>
    /// Closes the files. With <paramref name="allApplied"/> (a clean close: the data file holds every
    /// record) files larger than the initial size are deleted (the next open starts small again) and
    /// the others stay for the next open to recycle.
    /// </summary>
    public void Close(bool allApplied)
    {
        lock (_filesLock)
        {
            foreach (var f in _files.Concat(_spares))
            {
                f.Dispose();
                if (allApplied && f.Length != _initialFileSize)
                {
                    File.Delete(f.Path);
                }
            }

            _files.Clear();
            _heldBytes = 0;
            _spares.Clear();
        }
    }

    public void Dispose()
    {
        Close(allApplied: false);
        if (_buffer != null)
        {
            _memory.Free(_buffer, _bufferSize);
            _buffer = null;
            _bufferSize = 0;
        }

        if (_diffs != null)
        {
            _memory.Free(_diffs, _diffsSize);
            _diffs = null;
            _diffsSize = 0;
        }

        FreeVectors();
    }
}
