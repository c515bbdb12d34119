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

        ArgumentNullException.ThrowIfNull(Storage);
    }
}
