using Microsoft.Win32.SafeHandles;

namespace Ingest.Storage.Journal;

/// <summary>One journal file being written or waiting to be deleted once the data file holds all its records.</summary>
internal sealed class JournalFile(long sequence, string path, SafeFileHandle handle, long length) : IDisposable
{
    public const string Prefix = "journal.";

    public long Sequence { get; } = sequence;

    public string Path { get; } = path;

    public SafeFileHandle Handle { get; } = handle;

    public long Length { get; } = length;

    private long _position;

    /// <summary>Where the next record goes. Written after <see cref="LastTxId"/>, so a reader that sees the file full also sees its last record's id.</summary>
    public long Position
    {
        get => Volatile.Read(ref _position);
        set => Volatile.Write(ref _position, value);
    }

    /// <summary>No record can go in any more (records and file sizes are multiples of <see cref="JournalRecord.Alignment"/>).</summary>
    public bool IsFull => Position + JournalRecord.Alignment > Length;

    public long LastTxId { get; set; }

    /// <summary>When the file was made ready (<see cref="Environment.TickCount64"/>): how fast it fills sizes the next.</summary>
    public long CreatedAtMs { get; } = Environment.TickCount64;

    public static string NameFor(long sequence) => $"{Prefix}{sequence:D10}";

    public static bool TryParseSequence(string fileName, out long sequence)
    {
        sequence = 0;
        return fileName.StartsWith(Prefix, StringComparison.Ordinal)
            && long.TryParse(fileName.AsSpan(Prefix.Length), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out sequence);
    }

    public void Dispose() => Handle.Dispose();
}
