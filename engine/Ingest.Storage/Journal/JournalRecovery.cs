using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using Ingest.Storage.Paging;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Journal;

/// <summary>
/// Replays, on open, the journal records the data file does not hold yet. Records must follow
/// each other by transaction id. A record whose header is damaged or whose payload fails its
/// checksum ends replay only if no valid later record exists (a torn tail write); otherwise it
/// is corruption and <see cref="StorageCorruptionException"/> names the file and offset.
/// <para>
/// Journal files are zero-filled before the data file header names them, so a named file that is
/// missing or shorter than its size, or a record that runs past the end of its file, is damage
/// (a truncated, emptied or deleted file), never a torn write: replay refuses it, naming the file,
/// the offset where the intact records end and the transactions at risk, unless the caller
/// accepts the loss (<see cref="StorageOptions.AcceptJournalLoss"/>), which stops replay there.
/// </para>
/// </summary>
internal sealed unsafe class JournalRecovery
{
    private const int ScanChunk = 1024 * 1024;
    private readonly string _directory;
    private readonly ScratchMemory _memory;
    private readonly FileHeader _header;
    private readonly bool _acceptLoss;
    private readonly List<(long Sequence, string Path)> _files = [];

    public JournalRecovery(string directory, ScratchMemory memory, FileHeader header, bool acceptLoss)
    {
        _directory = directory;
        _memory = memory;
        _header = header;
        _acceptLoss = acceptLoss;
        foreach (var path in Directory.EnumerateFiles(directory, JournalFile.Prefix + "*"))
        {
            if (JournalFile.TryParseSequence(Path.GetFileName(path), out var seq))
            {
                _files.Add((seq, path));
            }
        }

        _files.Sort((a, b) => a.Sequence.CompareTo(b.Sequence));
    }

    /// <summary>The sequence number the next journal file should use.</summary>
    public long NextSequence => Math.Max(_files.Count == 0 ? 1 : _files[^1].Sequence + 1, _header.LastJournal + 1);

    public int FileCount => _files.Count;

    /// <summary>Set when damage was found and accepted: what was given up.</summary>
    public JournalLoss? Loss { get; private set; }

    /// <summary>
    /// Writes every record after <paramref name="lastAppliedTx"/> into the data file; returns the last replayed tx id.
    /// <paramref name="readPage"/> copies a page as the data file has it now (what a diff applies to) and
    /// returns false when the file has no such page.
    /// </summary>
    public long Replay(long lastAppliedTx, Action<long, nint, int> writePages, Func<long, nint, bool> readPage)
    {
        var expected = lastAppliedTx + 1;
        Span<byte> header = stackalloc byte[JournalRecord.HeaderSize];
        var singleBuffer = GC.AllocateUninitializedArray<byte>(PageHeader.PageSize, pinned: true);
        var files = FilesWithMissingOnes();
        for (var fi = 0; fi < files.Count; fi++)
        {
            var (sequence, path, missing) = files[fi];
            if (missing)
            {
                return Damaged(files, fi, 0, expected - 1, $"Journal file '{path}' is missing (the data file header names journal files {_header.FirstJournal} to {_header.LastJournal})");
            }

            using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            var length = RandomAccess.GetLength(handle);
            var replayedHere = false;
            long pos = 0;
            while (pos + JournalRecord.HeaderSize <= length)
            {
                if (!TryReadHeader(handle, pos, length, header, out var entries, out var txId, out var payloadLength, out var total))
                {
                    if (total > 0 && txId >= expected)
                    {
                        return Damaged(files, fi, pos, expected - 1, $"Journal file '{path}' is {length} bytes but the record for transaction {txId} at offset {pos} needs {total}: the file was truncated");
                    }

                    break;
                }

                if (txId < expected)
                {
                    pos += total;
                    continue;
                }

                if (txId > expected)
                {
                    throw new StorageCorruptionException($"Journal record for transaction {txId} found where transaction {expected} was expected: a record is missing or damaged", path, pos);
                }

                var recordLength = JournalRecord.HeaderSize + entries.Length + payloadLength;
                var buffer = _memory.Allocate(Math.Max(recordLength, 1));
                try
                {
                    for (long done = 0; done < recordLength;)
                    {
                        var chunk = (int)Math.Min(recordLength - done, 1L << 30);
                        ReadExactly(handle, new Span<byte>(buffer + done, chunk), pos + done);
                        done += chunk;
                    }

                    var payload = buffer + JournalRecord.HeaderSize + entries.Length;
                    var expectedCrc = BinaryPrimitives.ReadUInt32LittleEndian(header[24..]);
                    if (Checksum.Compute(payload, payloadLength) != expectedCrc)
                    {
                        if (ValidRecordExistsFrom(files, fi, pos + total, txId))
                        {
                            throw new StorageCorruptionException($"Journal record for transaction {txId} fails its payload checksum and later records exist", path, pos);
                        }

                        if (IsShort(sequence, length, replayedHere: true, out var shortBy))
                        {
                            return Damaged(files, fi, pos, expected - 1, shortBy);
                        }

                        return expected - 1; // torn tail
                    }

                    var count = entries.Length / JournalRecord.EntrySize;
                    var image = payload;
                    var end = payload + payloadLength;
                    var single = (byte*)Unsafe.AsPointer(ref singleBuffer[0]);
                    for (var i = 0; i < count; i++)
                    {
                        var entry = entries.AsSpan(i * JournalRecord.EntrySize);
                        var page = BinaryPrimitives.ReadInt64LittleEndian(entry);
                        var pages = BinaryPrimitives.ReadInt32LittleEndian(entry[8..]);
                        int holeStart = BinaryPrimitives.ReadUInt16LittleEndian(entry[12..]);
                        int holeEnd = BinaryPrimitives.ReadUInt16LittleEndian(entry[14..]);
                        if (pages == 1 && holeStart == JournalRecord.DiffMarker && holeEnd == JournalRecord.DiffMarker)
                        {
                            if (page <= 0 || !readPage(page, (nint)single))
                            {
                                throw new StorageCorruptionException($"Journal record for transaction {txId} changes page {page}, which the data file does not have (entry {i})", path, pos);
                            }

                            var diffLength = PageDiff.Apply(image, end - image, single);
                            if (diffLength < 0)
                            {
                                throw new StorageCorruptionException($"Journal record for transaction {txId} has a malformed page diff in entry {i}", path, pos);
                            }

                            writePages(page, (nint)single, 1);
                            image += diffLength;
                            continue;
                        }

                        var isSingle = pages == 1 && holeEnd != 0;
                        var imageLength = isSingle ? PageHeader.PageSize - (holeEnd - holeStart) : (long)pages * PageHeader.PageSize;
                        if (page <= 0 || pages <= 0 || (isSingle && (holeStart > holeEnd || holeEnd > PageHeader.PageSize)) || image + imageLength > end)
                        {
                            throw new StorageCorruptionException($"Journal record for transaction {txId} has an invalid page entry {i}", path, pos);
                        }

                        if (isSingle)
                        {
                            Buffer.MemoryCopy(image, single, holeStart, holeStart);
                            new Span<byte>(single + holeStart, holeEnd - holeStart).Clear();
                            var tail = PageHeader.PageSize - holeEnd;
                            Buffer.MemoryCopy(image + holeStart, single + holeEnd, tail, tail);
                            writePages(page, (nint)single, 1);
                        }
                        else
                        {
                            writePages(page, (nint)image, pages);
                        }

                        image += imageLength;
                    }
                }
                finally
                {
                    _memory.Free(buffer, Math.Max(recordLength, 1));
                }

                expected++;
                replayedHere = true;
                pos += total;
            }

            // The chain of records in this file ended at pos. If a valid record for a transaction
            // we still expect lies further in this file, the record at pos was damaged.
            if (pos + JournalRecord.HeaderSize <= length && ValidRecordInFile(path, pos, expected))
            {
                throw new StorageCorruptionException($"Journal record for transaction {expected} is damaged and later records exist", path, pos);
            }

            if (IsShort(sequence, length, replayedHere, out var reason))
            {
                return Damaged(files, fi, pos, expected - 1, reason);
            }
        }

        return expected - 1;
    }

    /// <summary>The present files plus, in order, the ones the data file header names that are missing.</summary>
    private List<(long Sequence, string Path, bool Missing)> FilesWithMissingOnes()
    {
        var all = _files.Select(f => (f.Sequence, f.Path, Missing: false)).ToList();
        if (_header.KnowsJournals)
        {
            var present = _files.Select(f => f.Sequence).ToHashSet();
            for (var seq = _header.FirstJournal; seq <= _header.LastJournal; seq++)
            {
                if (!present.Contains(seq))
                {
                    all.Add((seq, Path.Combine(_directory, JournalFile.NameFor(seq)), true));
                }
            }

            all.Sort((a, b) => a.Sequence.CompareTo(b.Sequence));
        }

        return all;
    }

    /// <summary>
    /// Whether a file that must be whole is shorter than it was created: one the header names, or
    /// (for a header that predates that) one that held records still to replay.
    /// </summary>
    private bool IsShort(long sequence, long length, bool replayedHere, out string reason)
    {
        var named = _header.KnowsJournals && sequence >= _header.FirstJournal && sequence <= _header.LastJournal;
        var minimum = _header.JournalFileSize > 0 ? _header.JournalFileSize : 0;
        if ((named || (!_header.KnowsJournals && replayedHere)) && minimum > 0 && length < minimum)
        {
            reason = $"Journal file '{Path.Combine(_directory, JournalFile.NameFor(sequence))}' is {length} bytes, but journal files are created with {minimum}: it was truncated or emptied";
            return true;
        }

        reason = string.Empty;
        return false;
    }

    /// <summary>Throws the damage report, or with the loss accepted records it and returns the last intact transaction.</summary>
    private long Damaged(List<(long Sequence, string Path, bool Missing)> files, int fileIndex, long offset, long lastIntact, string what)
    {
        long? lastKnown = null;
        for (var fi = fileIndex + 1; fi < files.Count; fi++)
        {
            if (!files[fi].Missing && HighestTxIn(files[fi].Path) is { } high && high > lastIntact)
            {
                lastKnown = Math.Max(lastKnown ?? 0, high);
            }
        }

        var atRisk = lastKnown is { } known
            ? $"transactions {lastIntact + 1} to {known} (later journal files hold records up to {known}; any between are in the damaged part) are at risk"
            : $"every committed transaction after {lastIntact} is at risk (nothing on disk says how many there were)";
        var message = $"{what}. The intact journal ends after transaction {lastIntact}, at offset {offset}: {atRisk}. "
            + "Restore the directory from a backup, or open it with AcceptJournalLoss (ingest recover --accept-loss) to keep what is intact and give up the rest";
        var path = files[fileIndex].Path;
        if (!_acceptLoss)
        {
            throw new StorageCorruptionException(message, path, offset);
        }

        Loss = new JournalLoss(path, offset, lastIntact, lastKnown, $"{message} (file '{path}', offset {offset})");
        return lastIntact;
    }

    /// <summary>The highest transaction id in the chain of valid records from the start of the file, or null.</summary>
    private static long? HighestTxIn(string path)
    {
        using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        var length = RandomAccess.GetLength(handle);
        Span<byte> header = stackalloc byte[JournalRecord.HeaderSize];
        long? highest = null;
        for (long pos = 0; pos + JournalRecord.HeaderSize <= length;)
        {
            if (!TryReadHeader(handle, pos, length, header, out _, out var txId, out _, out var total))
            {
                break;
            }

            highest = Math.Max(highest ?? 0, txId);
            pos += total;
        }

        return highest;
    }

    /// <summary>Deletes every journal file (after an accepted loss: their records belong to a history the store gave up).</summary>
    public void DeleteAll()
    {
        foreach (var (_, path) in _files)
        {
            File.Delete(path);
        }

        FileSync.SyncDirectory(_directory);
    }

    /// <summary>
    /// Reads and checks the record header at <paramref name="pos"/>. False when there is no valid
    /// header there; then <paramref name="total"/> is non-zero if the header is valid but the
    /// record runs past the end of the file.
    /// </summary>
    private static bool TryReadHeader(SafeFileHandle handle, long pos, long length, Span<byte> header, out byte[] entries, out long txId, out long payloadLength, out long total)
    {
        entries = [];
        txId = 0;
        payloadLength = 0;
        total = 0;
        if (RandomAccess.Read(handle, header, pos) < JournalRecord.HeaderSize
            || BinaryPrimitives.ReadUInt32LittleEndian(header) != JournalRecord.Magic)
        {
            return false;
        }

        var count = BinaryPrimitives.ReadInt32LittleEndian(header[4..]);
        var id = BinaryPrimitives.ReadInt64LittleEndian(header[8..]);
        payloadLength = BinaryPrimitives.ReadInt64LittleEndian(header[16..]);
        if (count < 0 || payloadLength < 0 || JournalRecord.HeaderSize + ((long)count * JournalRecord.EntrySize) > length - pos)
        {
            return false;
        }

        entries = new byte[count * JournalRecord.EntrySize];
        if (RandomAccess.Read(handle, entries, pos + JournalRecord.HeaderSize) < entries.Length)
        {
            return false;
        }

        var block = new byte[JournalRecord.HeaderSize + entries.Length];
        header.CopyTo(block);
        entries.CopyTo(block, JournalRecord.HeaderSize);
        fixed (byte* b = block)
        {
            if (JournalRecord.HeaderChecksum(b, count) != BinaryPrimitives.ReadUInt32LittleEndian(header[28..]))
            {
                return false;
            }
        }

        txId = id;
        total = JournalRecord.TotalLength(count, payloadLength);
        return pos + total <= length;
    }

    private static bool ValidRecordExistsFrom(List<(long Sequence, string Path, bool Missing)> files, int fileIndex, long pos, long afterTxId)
    {
        if (ValidRecordInFile(files[fileIndex].Path, pos, afterTxId + 1))
        {
            return true;
        }

        for (var fi = fileIndex + 1; fi < files.Count; fi++)
        {
            if (!files[fi].Missing && ValidRecordInFile(files[fi].Path, 0, afterTxId + 1))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Looks at every 4 KiB boundary from <paramref name="from"/> for a valid record header with tx id at least <paramref name="minTxId"/>.</summary>
    private static bool ValidRecordInFile(string path, long from, long minTxId)
    {
        using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        var length = RandomAccess.GetLength(handle);
        var chunk = new byte[ScanChunk];
        Span<byte> header = stackalloc byte[JournalRecord.HeaderSize];
        from = (from + JournalRecord.Alignment - 1) / JournalRecord.Alignment * JournalRecord.Alignment;
        for (var chunkStart = from; chunkStart < length; chunkStart += ScanChunk)
        {
            var read = RandomAccess.Read(handle, chunk, chunkStart);
            for (var off = 0; off + JournalRecord.HeaderSize <= read; off += JournalRecord.Alignment)
            {
                if (BinaryPrimitives.ReadUInt32LittleEndian(chunk.AsSpan(off)) != JournalRecord.Magic)
                {
                    continue;
                }

                if (TryReadHeader(handle, chunkStart + off, length, header, out _, out var txId, out _, out _) && txId >= minTxId)
                {
                    return true;
                }
            }
        }

        return false;
    }

    private static void ReadExactly(SafeFileHandle handle, Span<byte> buffer, long offset)
    {
        while (!buffer.IsEmpty)
        {
            var n = RandomAccess.Read(handle, buffer, offset);
            if (n <= 0)
            {
                throw new EndOfStreamException();
            }

            buffer = buffer[n..];
            offset += n;
        }
    }

    /// <summary>
    /// Once every record is in the (synced) data file: keeps up to <paramref name="maxSpares"/> files of
    /// <paramref name="fileSize"/> bytes for recycling, deletes the rest, and returns the kept ones.
    /// </summary>
    public List<string> KeepSpares(long fileSize, int maxSpares)
    {
        var spares = new List<string>();
        var deleted = false;
        foreach (var (_, path) in _files)
        {
            if (spares.Count < maxSpares && new FileInfo(path).Length == fileSize)
            {
                spares.Add(path);
            }
            else
            {
                File.Delete(path);
                deleted = true;
            }
        }

        if (deleted)
        {
            FileSync.SyncDirectory(_directory);
        }

        return spares;
    }
}
