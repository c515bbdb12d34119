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
/// </summary>
internal sealed unsafe class JournalRecovery
{
    private const int ScanChunk = 1024 * 1024;
    private readonly string _directory;
    private readonly ScratchMemory _memory;
    private readonly List<(long Sequence, string Path)> _files = [];

    public JournalRecovery(string directory, ScratchMemory memory)
    {
        _directory = directory;
        _memory = memory;
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
    public long NextSequence => _files.Count == 0 ? 1 : _files[^1].Sequence + 1;

    public int FileCount => _files.Count;

    /// <summary>Writes every record after <paramref name="lastAppliedTx"/> into the data file; returns the last replayed tx id.</summary>
    public long Replay(long lastAppliedTx, Action<long, nint, int> writePages)
    {
        var expected = lastAppliedTx + 1;
        Span<byte> header = stackalloc byte[JournalRecord.HeaderSize];
        var singleBuffer = GC.AllocateUninitializedArray<byte>(PageHeader.PageSize, pinned: true);
        for (var fi = 0; fi < _files.Count; fi++)
        {
            var path = _files[fi].Path;
            using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            var length = RandomAccess.GetLength(handle);
            long pos = 0;
            while (pos + JournalRecord.HeaderSize <= length)
            {
                if (!TryReadHeader(handle, pos, length, header, out var entries, out var txId, out var payloadLength, out var total))
                {
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
                        if (ValidRecordExistsFrom(fi, pos + total, txId))
                        {
                            throw new StorageCorruptionException($"Journal record for transaction {txId} fails its payload checksum and later records exist", path, pos);
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
                pos += total;
            }

            // The chain of records in this file ended at pos. If a valid record for a transaction
            // we still expect lies further in this file, the record at pos was damaged.
            if (pos + JournalRecord.HeaderSize <= length && ValidRecordInFile(path, pos, expected))
            {
                throw new StorageCorruptionException($"Journal record for transaction {expected} is damaged and later records exist", path, pos);
            }
        }

        return expected - 1;
    }

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
        txId = BinaryPrimitives.ReadInt64LittleEndian(header[8..]);
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

        total = JournalRecord.TotalLength(count, payloadLength);
        return pos + total <= length;
    }

    private bool ValidRecordExistsFrom(int fileIndex, long pos, long afterTxId)
    {
        if (ValidRecordInFile(_files[fileIndex].Path, pos, afterTxId + 1))
        {
            return true;
        }

        for (var fi = fileIndex + 1; fi < _files.Count; fi++)
        {
            if (ValidRecordInFile(_files[fi].Path, 0, afterTxId + 1))
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
