namespace Ingest.Storage;

/// <summary>Data on disk failed a checksum or a structural check. The message names the file and offset.</summary>
public sealed class StorageCorruptionException : Exception
{
    public StorageCorruptionException()
    {
    }

    public StorageCorruptionException(string message)
        : base(message)
    {
    }

    public StorageCorruptionException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public StorageCorruptionException(string message, string filePath, long offset)
        : base($"{message} (file '{filePath}', offset {offset})")
    {
        FilePath = filePath;
        Offset = offset;
    }

    /// <summary>The damaged file, when known.</summary>
    public string? FilePath { get; }

    /// <summary>The damaged data page's number, or -1 when the damage is not in a data page.</summary>
    public long Page { get; init; } = -1;

    /// <summary>Byte offset of the damaged structure in <see cref="FilePath"/>, or -1.</summary>
    public long Offset { get; } = -1;
}
