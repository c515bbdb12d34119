using System.Buffers.Binary;
using System.Text;
using Ingest.Storage.Paging;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Backup;

/// <summary>
/// Restores a backup (layout in <see cref="BackupFormat"/>) into an empty directory, checking as it reads: every
/// page against its own checksum and page number, every entry against its crc32c, the end marker; then opens each
/// restored environment and runs <see cref="StorageEnvironment.Verify"/> on it. Any failure throws
/// <see cref="StorageCorruptionException"/> naming the backup, the offset and the entry (and page). The caller
/// restores into a scratch directory and moves it into place only when this returns, so a damaged backup never
/// leaves a half-restored directory behind.
/// </summary>
public static unsafe class BackupRestorer
{
    /// <param name="source">The backup, read front to back.</param>
    /// <param name="sourceName">How errors name the backup (its file path).</param>
    /// <param name="directory">Created if absent; must be empty.</param>
    public static IReadOnlyList<BackupEntry> Restore(Stream source, string sourceName, string directory)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(sourceName);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory.CreateDirectory(directory);
        if (Directory.EnumerateFileSystemEntries(directory).Any())
        {
            throw new IOException($"'{directory}' is not empty; a backup restores into an empty directory.");
        }

        return Read(source, sourceName, directory);
    }

    /// <summary>
    /// Reads the whole backup and checks every page, entry checksum and the end marker without writing anything
    /// (what <c>ingest backup</c> runs on a backup it just received). Tree structure is only checked by a restore.
    /// </summary>
    public static IReadOnlyList<BackupEntry> Check(Stream source, string sourceName)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(sourceName);
        return Read(source, sourceName, null);
    }

    private static List<BackupEntry> Read(Stream source, string sourceName, string? directory)
    {
        var input = new Input(source, sourceName);
        Span<byte> header = stackalloc byte[BackupFormat.HeaderSize];
        input.Read(header, "the backup header");
        if (BinaryPrimitives.ReadUInt64LittleEndian(header) != BackupFormat.Magic)
        {
            throw new StorageCorruptionException("Not an Ingest backup (its first bytes are not the backup's magic number)", sourceName, 0);
        }

        var version = BinaryPrimitives.ReadUInt32LittleEndian(header[8..]);
        var pageSize = BinaryPrimitives.ReadUInt32LittleEndian(header[12..]);
        if (version != BackupFormat.FormatVersion || pageSize != PageHeader.PageSize)
        {
            throw new StorageCorruptionException($"Unsupported backup: format version {version}, page size {pageSize} (this build reads version {BackupFormat.FormatVersion}, page size {PageHeader.PageSize})", sourceName, 8);
        }

        var entries = new List<BackupEntry>();
        Span<byte> pathLength = stackalloc byte[2];
        while (true)
        {
            var start = input.Offset;
            input.ResetChecksum();
            var tag = input.ReadByte("an entry");
            if (tag == BackupFormat.EndTag)
            {
                var count = input.ReadInt32("the end marker");
                input.CheckChecksum("the end marker");
                if (count != entries.Count)
                {
                    throw new StorageCorruptionException($"The end marker counts {count} entries where the backup holds {entries.Count}", sourceName, start);
                }

                break;
            }

            if (tag is not (BackupFormat.EnvironmentTag or BackupFormat.FileTag))
            {
                throw new StorageCorruptionException($"Damaged backup: an entry starts with byte {tag}, which is no entry kind", sourceName, start);
            }

            var length = BinaryPrimitives.ReadUInt16LittleEndian(input.Read(pathLength, "an entry's path"));
            var path = length > BackupFormat.MaxPathBytes ? null : Encoding.UTF8.GetString(input.Read(new byte[length], "an entry's path"));
            if (path is null || !BackupPath.IsValid(path) || entries.Exists(e => e.Path == path))
            {
                throw new StorageCorruptionException("Damaged backup: an entry's path is not a valid relative path", sourceName, start);
            }

            var target = directory is null ? null : BackupPath.Under(directory, path);
            var entry = tag == BackupFormat.EnvironmentTag
                ? RestoreEnvironment(input, path, target)
                : RestoreFile(input, path, target);
            input.CheckChecksum($"the entry '{path}'");
            entries.Add(entry.IsEnvironment ? entry with { Bytes = input.Offset - start } : entry);
        }

        if (source.ReadByte() >= 0)
        {
            throw new StorageCorruptionException("Damaged backup: bytes follow its end marker", sourceName, input.Offset);
        }

        if (directory is null)
        {
            return entries;
        }

        foreach (var entry in entries)
        {
            if (entry.IsEnvironment)
            {
                VerifyEnvironment(entry, BackupPath.Under(directory, entry.Path), sourceName);
            }
        }

        FileSync.SyncDirectory(directory);
        return entries;
    }

    /// <param name="target">The environment's directory; null to check only.</param>
    private static BackupEntry RestoreEnvironment(Input input, string path, string? target)
    {
        var txId = input.ReadInt64($"the header of '{path}'");
        var nextPage = input.ReadInt64($"the header of '{path}'");
        if (txId < 0 || nextPage < StatePage.PageNumber + 1 || nextPage > long.MaxValue / PageHeader.PageSize)
        {
            throw new StorageCorruptionException($"Damaged backup: '{path}' claims transaction {txId} and {nextPage} pages", input.Name, input.Offset - 16);
        }

        long restored = 0;
        if (target != null)
        {
            Directory.CreateDirectory(target);
        }

        using (var handle = target is null ? null : File.OpenHandle(Path.Combine(target, DataFile.FileName), FileMode.CreateNew, FileAccess.ReadWrite))
        {
            var buffer = new byte[PageHeader.PageSize];
            long expectedFrom = StatePage.PageNumber;
            while (true)
            {
                var unitOffset = input.Offset;
                var page = input.ReadInt64($"a page of '{path}'");
                var pages = input.ReadInt32($"a page of '{path}'");
                if (page == -1 && pages == 0)
                {
                    break;
                }

                // Units come in page order, the state page first, inside the allocated pages.
                if (page < expectedFrom || (restored == 0 && page != StatePage.PageNumber) || pages < 1 || pages > nextPage - page)
                {
                    throw new StorageCorruptionException($"Damaged backup: a unit of '{path}' claims pages {page}..{page + pages - 1}, out of order or outside pages 1..{nextPage - 1}", input.Name, unitOffset) { Page = page };
                }

                var bytes = pages * PageHeader.PageSize;
                if (buffer.Length < bytes)
                {
                    buffer = new byte[bytes];
                }

                input.Read(buffer.AsSpan(0, bytes), $"page {page} of '{path}'");
                fixed (byte* p = buffer)
                {
                    var run = PageHeader.GetType(p) == PageType.Overflow ? OverflowPage.PagesFor(OverflowPage.GetValueLength(p)) : 1;
                    if (!PageHeader.Verify(p, page, bytes) || run != pages)
                    {
                        throw new StorageCorruptionException($"Damaged backup: page {page} of '{path}' fails its checksum", input.Name, unitOffset + BackupFormat.UnitHeaderSize) { Page = page };
                    }

                    if (page == StatePage.PageNumber && StatePage.GetTxId(p) != txId)
                    {
                        throw new StorageCorruptionException($"Damaged backup: the state page of '{path}' is transaction {StatePage.GetTxId(p)} where the entry says {txId}", input.Name, unitOffset) { Page = page };
                    }
                }

                if (handle != null)
                {
                    RandomAccess.Write(handle, buffer.AsSpan(0, bytes), page * PageHeader.PageSize);
                }

                restored += pages;
                expectedFrom = page + pages;
            }

            if (handle != null)
            {
                // Free pages stay zero; the header says every transaction up to the snapshot's is in the file and names no journal.
                RandomAccess.SetLength(handle, Math.Max(nextPage, 3) * PageHeader.PageSize);
                DataFile.WriteHeader(handle, new FileHeader(StatePage.PageNumber, txId, Sequence: 0));
                FileSync.DataSync(handle);
            }
        }

        if (target != null)
        {
            FileSync.SyncDirectory(target);
        }

        return new BackupEntry(path, true, txId, restored, 0);
    }

    /// <param name="target">The file; null to check only.</param>
    private static BackupEntry RestoreFile(Input input, string path, string? target)
    {
        var length = input.ReadInt64($"the header of '{path}'");
        if (length < 0)
        {
            throw new StorageCorruptionException($"Damaged backup: '{path}' claims {length} bytes", input.Name, input.Offset - 8);
        }

        if (target != null)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        }

        using (var file = target is null ? null : new FileStream(target, FileMode.CreateNew, FileAccess.Write))
        {
            var buffer = new byte[64 * 1024];
            for (long done = 0; done < length;)
            {
                var chunk = (int)Math.Min(buffer.Length, length - done);
                input.Read(buffer.AsSpan(0, chunk), $"the file '{path}'");
                file?.Write(buffer, 0, chunk);
                done += chunk;
            }

            file?.Flush(flushToDisk: true);
        }

        return new BackupEntry(path, false, -1, 0, length);
    }

    /// <summary>Opens the restored environment (which also checks its header and state page) and checks every page and tree.</summary>
    private static void VerifyEnvironment(BackupEntry entry, string directory, string sourceName)
    {
        using var env = StorageEnvironment.Open(directory, new StorageOptions { BackgroundFlush = false });
        if (env.LastCommittedTransactionId != entry.TransactionId)
        {
            throw new StorageCorruptionException($"The restored '{entry.Path}' opens at transaction {env.LastCommittedTransactionId} where the backup says {entry.TransactionId}", sourceName, -1);
        }

        var report = env.Verify();
        if (!report.IsClean)
        {
            var first = report.Damaged[0];
            throw new StorageCorruptionException($"The restored '{entry.Path}' has {report.Damaged.Count} damaged page(s), the first: {first}", sourceName, -1) { Page = first.Page };
        }
    }

    /// <summary>The backup stream with the offset read so far and the checksum of the current entry.</summary>
    private sealed class Input(Stream stream, string name)
    {
        private uint _crc = BackupChecksum.Seed;

        public string Name { get; } = name;

        public long Offset { get; private set; }

        public Span<byte> Read(Span<byte> destination, string what)
        {
            var read = stream.ReadAtLeast(destination, destination.Length, throwOnEndOfStream: false);
            if (read < destination.Length)
            {
                throw new StorageCorruptionException($"The backup ends early, inside {what}: it is incomplete (was the backup interrupted or the file truncated?)", Name, Offset + read);
            }

            _crc = BackupChecksum.Update(_crc, destination);

            Offset += read;
            return destination;
        }

        public byte ReadByte(string what) => Read(stackalloc byte[1], what)[0];

        public int ReadInt32(string what) => BinaryPrimitives.ReadInt32LittleEndian(Read(stackalloc byte[4], what));

        public long ReadInt64(string what) => BinaryPrimitives.ReadInt64LittleEndian(Read(stackalloc byte[8], what));

        public void ResetChecksum() => _crc = BackupChecksum.Seed;

        public void CheckChecksum(string what)
        {
            var expected = BackupChecksum.Finish(_crc);
            var at = Offset;
            Span<byte> stored = stackalloc byte[4];
            if (stream.ReadAtLeast(stored, 4, throwOnEndOfStream: false) < 4)
            {
                throw new StorageCorruptionException($"The backup ends early, inside the checksum of {what}: it is incomplete", Name, at);
            }

            Offset += 4;
            if (BinaryPrimitives.ReadUInt32LittleEndian(stored) != expected)
            {
                throw new StorageCorruptionException($"Damaged backup: {what} fails its checksum", Name, at);
            }
        }
    }
}
