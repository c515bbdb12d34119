using System.Buffers.Binary;
using System.Text;
using Ingest.Storage.Paging;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Backup;

/// <summary>
/// Writes a backup (layout in <see cref="BackupFormat"/>) to a stream, front to back: environments from read
/// snapshots taken by the caller (so they run beside the writer, and the caller decides which snapshots belong
/// together), and plain files. Pages are copied through a buffer and written in large chunks, asynchronously, so
/// the destination can be an HTTP response. Not thread-safe; call <see cref="CompleteAsync"/> last.
/// </summary>
public sealed class BackupWriter
{
    private const int FlushBytes = 1 << 20;

    private readonly Stream _destination;
    private readonly HashSet<string> _paths = new(StringComparer.Ordinal);
    private byte[] _buffer = new byte[FlushBytes + BackupFormat.UnitHeaderSize + PageHeader.PageSize];
    private int _used;
    private int _crcFrom;
    private uint _crc = BackupChecksum.Seed;
    private int _entries;
    private bool _completed;

    public BackupWriter(Stream destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        _destination = destination;
        BinaryPrimitives.WriteUInt64LittleEndian(_buffer, BackupFormat.Magic);
        BinaryPrimitives.WriteUInt32LittleEndian(_buffer.AsSpan(8), BackupFormat.FormatVersion);
        BinaryPrimitives.WriteUInt32LittleEndian(_buffer.AsSpan(12), PageHeader.PageSize);
        _used = _crcFrom = BackupFormat.HeaderSize;
    }

    /// <summary>Bytes handed to the destination so far.</summary>
    public long BytesWritten { get; private set; }

    /// <summary>Pages copied so far, over every environment.</summary>
    public long PagesWritten { get; private set; }

    /// <summary>
    /// Copies the allocated pages of <paramref name="snapshot"/>'s environment as it is in that snapshot, checking
    /// each page's checksum on the way (a damaged source page fails the backup rather than travel in it). The
    /// snapshot must stay open until this returns.
    /// </summary>
    /// <param name="path">Where the environment goes on restore, relative to the restored directory ('/'-separated).</param>
    /// <exception cref="StorageCorruptionException">A page of the environment is damaged.</exception>
    public async Task AddEnvironmentAsync(string path, ReadTransaction snapshot, CancellationToken cancellationToken = default)
    {
        var source = snapshot.Snapshot;
        BeginEntry(BackupFormat.EnvironmentTag, path);
        var nextPage = NextPage(source);
        Append(source.TxId);
        Append(nextPage);
        long page = StatePage.PageNumber;
        while (true)
        {
            var pages = NextUnit(source, nextPage, ref page);
            if (pages == 0)
            {
                break;
            }

            var size = BackupFormat.UnitHeaderSize + (pages * PageHeader.PageSize);
            if (_used + size > _buffer.Length)
            {
                await FlushAsync(cancellationToken).ConfigureAwait(false);
                if (size > _buffer.Length)
                {
                    _buffer = new byte[size]; // a large overflow value; kept, the next one may be as large
                }
            }

            CopyUnit(source, page, pages);
            PagesWritten += pages;
            page += pages;
            if (_used >= FlushBytes)
            {
                await FlushAsync(cancellationToken).ConfigureAwait(false);
            }
        }

        Append(-1L);
        Append(0);
        EndEntry();
        await FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Adds a plain file's bytes.</summary>
    public async Task AddFileAsync(string path, ReadOnlyMemory<byte> content, CancellationToken cancellationToken = default)
    {
        BeginEntry(BackupFormat.FileTag, path);
        Append((long)content.Length);
        for (var done = 0; done < content.Length;)
        {
            if (_used == _buffer.Length)
            {
                await FlushAsync(cancellationToken).ConfigureAwait(false);
            }

            var chunk = Math.Min(content.Length - done, _buffer.Length - _used);
            content.Span.Slice(done, chunk).CopyTo(_buffer.AsSpan(_used));
            _used += chunk;
            done += chunk;
        }

        if (_used + 4 > _buffer.Length)
        {
            await FlushAsync(cancellationToken).ConfigureAwait(false);
        }

        EndEntry();
        await FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes the end marker and flushes the destination. Without it, restore refuses the backup as cut short.</summary>
    public async Task CompleteAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_completed, this);
        _buffer[_used++] = BackupFormat.EndTag;
        Append(_entries);
        EndEntry();
        _completed = true;
        await FlushAsync(cancellationToken).ConfigureAwait(false);
        await _destination.FlushAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The allocated high-water mark of the snapshot (pages at or above it were never used).</summary>
    private static unsafe long NextPage(Snapshot source) => StatePage.GetNextPage(Page(source, StatePage.PageNumber, source.Map.PageCount));

    /// <summary>The page as <paramref name="source"/> sees it: its committed version in scratch memory, else the data file, unverified.</summary>
    private static unsafe byte* Page(Snapshot source, long page, long nextPage)
    {
        var inScratch = source.Table.Count != 0 ? source.Table.Find(page, source.TxId) : 0;
        var p = inScratch != 0 ? (byte*)inScratch : source.Map.GetPageUnverified(page);
        if (p == null || page >= Math.Max(nextPage, StatePage.PageNumber + 1))
        {
            throw new StorageCorruptionException($"Page {page} is beyond the end of the data file or the allocated pages", source.Map.Path, page * PageHeader.PageSize) { Page = page };
        }

        return p;
    }

    /// <summary>
    /// Moves <paramref name="page"/> to the next allocated unit at or after it and returns its length in pages (an
    /// overflow run's continuation pages have no header of their own: they are only ever reached through the run's
    /// first page, which comes before them), or 0 when none is left. Checks the unit's checksum.
    /// </summary>
    private static unsafe int NextUnit(Snapshot source, long nextPage, ref long page)
    {
        var state = Page(source, StatePage.PageNumber, nextPage);
        var bitmaps = StatePage.GetBitmapCount(state);
        for (; page < nextPage; page++)
        {
            var index = page / FreeSpaceBitmap.PagesPerBitmap;
            if (page != StatePage.PageNumber && index < bitmaps)
            {
                var words = (ulong*)(Page(source, StatePage.GetBitmapPage(state, (int)index), nextPage) + PageHeader.Size);
                var bit = page % FreeSpaceBitmap.PagesPerBitmap;
                if ((words[bit >> 6] & (1UL << (int)(bit & 63))) != 0)
                {
                    continue;
                }
            }

            var p = Page(source, page, nextPage);
            var available = (nextPage - page) * PageHeader.PageSize;
            if (!PageHeader.Verify(p, page, available))
            {
                throw new StorageCorruptionException(
                    $"Page {page} fails its checksum or page number check; the backup would carry the damage ('ingest verify' lists damaged pages)",
                    source.Map.Path,
                    page * PageHeader.PageSize)
                { Page = page };
            }

            return PageHeader.GetType(p) == PageType.Overflow ? OverflowPage.PagesFor(OverflowPage.GetValueLength(p)) : 1;
        }

        return 0;
    }

    private unsafe void CopyUnit(Snapshot source, long page, int pages)
    {
        Append(page);
        Append(pages);
        var bytes = pages * PageHeader.PageSize;

        // A run is contiguous in scratch memory and in the data file alike.
        new ReadOnlySpan<byte>(Page(source, page, long.MaxValue), bytes).CopyTo(_buffer.AsSpan(_used));
        _used += bytes;
    }

    private void BeginEntry(byte tag, string path)
    {
        ObjectDisposedException.ThrowIf(_completed, this);
        var name = Encoding.UTF8.GetBytes(BackupPath.Validate(path));
        if (!_paths.Add(path))
        {
            throw new ArgumentException($"'{path}' is already in the backup.", nameof(path));
        }

        _buffer[_used++] = tag;
        BinaryPrimitives.WriteUInt16LittleEndian(_buffer.AsSpan(_used), (ushort)name.Length);
        _used += 2;
        name.CopyTo(_buffer.AsSpan(_used));
        _used += name.Length;
    }

    private void EndEntry()
    {
        FoldChecksum();
        BinaryPrimitives.WriteUInt32LittleEndian(_buffer.AsSpan(_used), BackupChecksum.Finish(_crc));
        _used += 4;
        _crc = BackupChecksum.Seed;
        _crcFrom = _used;
        _entries++;
    }

    private void Append(long value)
    {
        BinaryPrimitives.WriteInt64LittleEndian(_buffer.AsSpan(_used), value);
        _used += 8;
    }

    private void Append(int value)
    {
        BinaryPrimitives.WriteInt32LittleEndian(_buffer.AsSpan(_used), value);
        _used += 4;
    }

    /// <summary>Adds the bytes appended since the last fold to the current entry's checksum.</summary>
    private void FoldChecksum()
    {
        _crc = BackupChecksum.Update(_crc, _buffer.AsSpan(_crcFrom, _used - _crcFrom));
        _crcFrom = _used;
    }

    private async Task FlushAsync(CancellationToken cancellationToken)
    {
        if (_used == 0)
        {
            return;
        }

        FoldChecksum();
        await _destination.WriteAsync(_buffer.AsMemory(0, _used), cancellationToken).ConfigureAwait(false);
        BytesWritten += _used;
        _used = _crcFrom = 0;
    }
}
