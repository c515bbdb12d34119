using Ingest.Storage;

namespace Ingest.Documents;

/// <summary>Options of a <see cref="DocumentStore"/>; validated when it opens.</summary>
public sealed class DocumentStoreOptions
{
    /// <summary>The longest document id, in UTF-8 bytes.</summary>
    public const int MaxIdBytes = 512;

    /// <summary>The longest collection name, in UTF-8 bytes.</summary>
    public const int MaxCollectionBytes = 128;

    /// <summary>The longest source name, in UTF-8 bytes.</summary>
    public const int MaxSourceBytes = 256;

    /// <summary>Largest JSON body (and dead letter payload) accepted, in bytes. 16 MiB by default.</summary>
    public int MaxBodyBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// Group commit stops adding waiting batches to a transaction once it holds this many payload
    /// bytes (a memory bound, not a count; one batch is never split). 64 MiB by default.
    /// </summary>
    public long MaxTransactionBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>Deepest JSON nesting accepted. 128 by default.</summary>
    public int MaxJsonDepth { get; set; } = 128;

    /// <summary>
    /// Store document bodies zstd-compressed (with a dictionary per collection once it has enough documents).
    /// Readers always see the JSON; turning it off stores new puts raw and still reads compressed ones. Off by default
    /// (the lifecycle benchmark's puts and gets with it fall short of the targets; see docs/operations.md, "Compression").
    /// </summary>
    public bool Compression { get; set; }

    /// <summary>The zstd level bodies are compressed at (1 = fastest, 19 = smallest). 3 by default.</summary>
    public int CompressionLevel { get; set; } = 3;

    /// <summary>Bodies smaller than this many bytes are stored raw. 64 by default.</summary>
    public int CompressionMinimumBytes { get; set; } = 64;

    /// <summary>
    /// A collection's dictionary is trained from its last this many documents, once it has put this many;
    /// the ratio is checked again every this many puts, and the dictionary retrained when it degraded. 1,000 by default.
    /// </summary>
    public int DictionaryTrainingDocuments { get; set; } = 1000;

    /// <summary>The largest dictionary trained, in bytes. 32 KiB by default.</summary>
    public int DictionaryBytes { get; set; } = 32 * 1024;

    /// <summary>
    /// Retrain a collection's dictionary when the stored/JSON ratio of the last <see cref="DictionaryTrainingDocuments"/>
    /// puts is this many times worse than the ratio the dictionary reached on its training sample. 1.25 by default.
    /// </summary>
    public double DictionaryRetrainRatio { get; set; } = 1.25;

    /// <summary>The storage environment's options (sync mode, journal size, flushing).</summary>
    public StorageOptions Storage { get; set; } = new();

    internal void Validate()
    {
        if (MaxBodyBytes < 2 || MaxBodyBytes > int.MaxValue / 2)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxBodyBytes), MaxBodyBytes, "Must be between 2 bytes and 1 GiB.");
        }

        if (MaxTransactionBytes < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxTransactionBytes), MaxTransactionBytes, "Must be positive.");
        }

        if (MaxJsonDepth < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxJsonDepth), MaxJsonDepth, "Must be positive.");
        }

        if (CompressionLevel < 1 || CompressionLevel > 19)
        {
            throw new ArgumentOutOfRangeException(nameof(CompressionLevel), CompressionLevel, "Must be between 1 and 19.");
        }

        if (CompressionMinimumBytes < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(CompressionMinimumBytes), CompressionMinimumBytes, "Must not be negative.");
        }

        if (DictionaryTrainingDocuments < 10)
        {
            throw new ArgumentOutOfRangeException(nameof(DictionaryTrainingDocuments), DictionaryTrainingDocuments, "Must be at least 10 (zstd trains from 10 samples or more).");
        }

        if (DictionaryBytes < 1024 || DictionaryBytes > 1024 * 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(DictionaryBytes), DictionaryBytes, "Must be between 1 KiB and 1 MiB.");
        }

        if (!(DictionaryRetrainRatio >= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(DictionaryRetrainRatio), DictionaryRetrainRatio, "Must be at least 1.");
        }

        ArgumentNullException.ThrowIfNull(Storage);
    }
}
