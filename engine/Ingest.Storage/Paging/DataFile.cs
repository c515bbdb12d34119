using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Paging;

/// <summary>
/// The data file: page 0 is the <see cref="FileHeader"/>, every other page belongs to the state,
/// the free-space bitmaps or a tree. Written only by recovery and the flusher, with positional
/// writes; read through <see cref="DataMap"/>.
/// <para>
/// Two locks, never held together (so neither comes first), both leaves under the environment's locks (the order is
/// on <see cref="StorageEnvironment"/>):
/// </para>
/// <list type="bullet">
/// <item><c>_headerLock</c>: the header's two slots and its sequence number. Two threads write the header: the one
/// committing, when the journal starts a file (<see cref="RecordJournalCreated"/>, under the writer lock), and the
/// flusher, recording what the data file holds (<see cref="UpdateHeader"/>, under the flush lock, and once more as the
/// environment closes). The write and its fsync run inside the lock, deliberately: each header is built from the one
/// before, and while one slot is being written the other must hold a durable header, so two writes in flight at once
/// could leave no valid copy.</item>
/// <item><c>_growLock</c>: the file's length and its mapping, changed together. Readers take the mapping with a
/// volatile read, never the lock. Only the flusher (under the environment's flush lock) and recovery (before the
/// environment exists) grow the file, so it is not contended today.</item>
/// </list>
/// <para>
/// Page writes and the data file's fsync (<see cref="WritePages"/>, <see cref="Sync"/>) take neither lock: only the
/// flusher, under the flush lock, and recovery write pages, and the header that makes them count comes after the sync.
/// </para>
/// </summary>
internal sealed unsafe class DataFile : IDisposable
{
    public const string FileName = "data.ingest";
    // 128 KiB: with 1 MiB steps an index holding a few pages took 1 MiB at its first flush.
    private const long MinGrowthPages = 16;
    private const long MaxGrowthPages = 128 * 1024;    // 1 GiB

    private readonly SafeFileHandle _handle;
    private readonly Lock _growLock = new();
    private readonly Lock _headerLock = new();
    private readonly WriteFaults _faults;
    private readonly Action<StorageCorruptionException>? _corrupted;
    private DataMap _map;
    private long _headerSequence;

    private DataFile(string path, SafeFileHandle handle, FileHeader header, WriteFaults faults, Action<StorageCorruptionException>? corrupted)
    {
        Path = path;
        _handle = handle;
        Header = header;
        _faults = faults;
        _corrupted = corrupted;
        _headerSequence = header.Sequence;
        var pages = RandomAccess.GetLength(handle) / PageHeader.PageSize;
        _map = new DataMap(handle, path, Math.Max(pages, 2), null, corrupted);
    }

    public string Path { get; }

    public FileHeader Header { get => Volatile.Read(ref _header); private set => Volatile.Write(ref _header, value); }

    private FileHeader _header = null!;

    public DataMap Map => Volatile.Read(ref _map);

    public long PageCapacity => Map.PageCount;

    /// <summary>Opens the data file, creating it with <paramref name="initialize"/> when it does not exist.</summary>
    public static DataFile Open(string directory, Action<SafeFileHandle> initialize, WriteFaults faults, Action<StorageCorruptionException>? corrupted)
    {
        var path = System.IO.Path.Combine(directory, FileName);
        // Initialization writes 3 pages at once; anything shorter is an initialization that never
        // finished (the file only ever grows past that), so it starts over.
        var exists = File.Exists(path) && new FileInfo(path).Length >= 3 * PageHeader.PageSize;
        var handle = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite);
        try
        {
            if (!exists)
            {
                initialize(handle);
                RandomAccess.FlushToDisk(handle);
                FileSync.SyncDirectory(directory);
            }

            var header = ReadHeader(handle, path);
            return new DataFile(path, handle, header, faults, corrupted);
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    public static FileHeader ReadHeader(SafeFileHandle handle, string path)
    {
        Span<byte> page = new byte[2 * FileHeader.SlotSize];
        var read = RandomAccess.Read(handle, page, 0);
        FileHeader? best = null;
        if (read >= FileHeader.Size)
        {
            best = FileHeader.TryRead(page, path, 0);
        }

        if (read >= FileHeader.SlotSize + FileHeader.Size)
        {
            var second = FileHeader.TryRead(page[FileHeader.SlotSize..], path, FileHeader.SlotSize);
            if (second is { } s && (best is not { } b || s.Sequence > b.Sequence))
            {
                best = second;
            }
        }

        return best ?? throw new StorageCorruptionException("Neither copy of the data file header is valid", path, 0);
    }

    public static void WriteHeader(SafeFileHandle handle, FileHeader header)
    {
        Span<byte> slot = stackalloc byte[FileHeader.SlotSize];
        header.Write(slot);
        RandomAccess.Write(handle, slot, (header.Sequence & 1) * FileHeader.SlotSize);
    }

    /// <summary>
    /// Records that everything up to <paramref name="lastAppliedTx"/> is in the data file (call after
    /// <see cref="Sync"/>) and that journal files before <paramref name="firstJournal"/> are no longer needed.
    /// </summary>
    public void UpdateHeader(long lastAppliedTx, long firstJournal)
    {
        lock (_headerLock)
        {
            WriteHeader(Header with { LastAppliedTx = lastAppliedTx, FirstJournal = firstJournal }, sync: true);
        }
    }

    /// <summary>
    /// Records that journal file <paramref name="sequence"/> exists, zero-filled to at least
    /// <paramref name="fileSize"/> bytes, before any record goes into it: from now on recovery
    /// refuses to open if it is missing or short.
    /// </summary>
    public void RecordJournalCreated(long sequence, long fileSize, bool sync)
    {
        lock (_headerLock)
        {
            var header = Header;

            // The smallest size any still-needed file was created with (the setting may have changed).
            var size = header.FirstJournal <= header.LastJournal && header.JournalFileSize > 0 ? Math.Min(header.JournalFileSize, fileSize) : fileSize;
            WriteHeader(header with { LastJournal = Math.Max(header.LastJournal, sequence), JournalFileSize = size }, sync);
        }
    }

    /// <summary>After recovery: everything up to <paramref name="lastAppliedTx"/> is applied and no journal file is needed; the next one is <paramref name="nextJournal"/>.</summary>
    public void ResetJournals(long lastAppliedTx, long nextJournal, long fileSize)
    {
        lock (_headerLock)
        {
            WriteHeader(Header with { LastAppliedTx = lastAppliedTx, FirstJournal = nextJournal, LastJournal = nextJournal - 1, JournalFileSize = fileSize }, sync: true);
        }
    }

    private void WriteHeader(FileHeader header, bool sync)
    {
        header = header with { Sequence = ++_headerSequence };
        WriteHeader(_handle, header);
        if (sync)
        {
            RandomAccess.FlushToDisk(_handle);
        }

        Header = header;
    }

    /// <summary>
    /// Grows the file (and remaps it) so that pages below <paramref name="pageCount"/> exist. Returns
    /// the replaced mapping, which the caller disposes once no snapshot can use it, or null.
    /// </summary>
    public DataMap? EnsureCapacity(long pageCount)
    {
        lock (_growLock)
        {
            var current = _map.PageCount;
            if (pageCount <= current)
            {
                return null;
            }

            // A fresh file (3 pages) grows to what it needs, rounded: an index that holds a few pages stays at 128 KiB.
            var growth = current < MinGrowthPages ? 0 : Math.Clamp(current / 4, MinGrowthPages, MaxGrowthPages);
            var target = Math.Max(pageCount, current + growth);
            target = (target + MinGrowthPages - 1) / MinGrowthPages * MinGrowthPages;
            RandomAccess.SetLength(_handle, target * PageHeader.PageSize);
            var map = new DataMap(_handle, Path, target, _map, _corrupted);
            var old = _map;
            Volatile.Write(ref _map, map);
            return old;
        }
    }

    public void WritePages(long page, byte* source, int pages)
    {
        _faults.ThrowIfFailing(Path, journal: false);
        var bytes = (long)pages * PageHeader.PageSize;
        for (long done = 0; done < bytes;)
        {
            var chunk = (int)Math.Min(bytes - done, 1L << 30);
            RandomAccess.Write(_handle, new ReadOnlySpan<byte>(source + done, chunk), (page * PageHeader.PageSize) + done);
            done += chunk;
        }
    }

    public void Sync() => FileSync.DataSync(_handle);

    public void Dispose()
    {
        _map.Dispose();
        _handle.Dispose();
    }
}
