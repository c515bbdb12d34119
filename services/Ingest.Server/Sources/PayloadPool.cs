using System.Buffers;

namespace Ingest.Server.Sources;

/// <summary>
/// The pool behind <see cref="IngestItem.Rented"/>: put bodies copied out of a client's buffer live
/// here until their batch is durable. Not <see cref="ArrayPool{T}.Shared"/>: that keeps a few dozen
/// arrays of a size per core, while a source holds a batch being filled and up to three being written
/// (thousands of bodies), rented on the consume thread and returned in bursts of a batch by the
/// writer; nearly every return would be dropped and nearly every rent would allocate a fresh array,
/// rounded up to a power of two. Bodies over <see cref="MaxPooledBytes"/> are allocated and dropped.
/// </summary>
internal static class PayloadPool
{
    /// <summary>The largest array kept; bigger bodies are rare and are left to the GC.</summary>
    public const int MaxPooledBytes = 64 * 1024;

    // Enough for the default batching (1,000 messages: one batch filling, two pending, three being
    // written) of one size class; the pool allocates a slot table of this length per size class.
    private const int ArraysPerSize = 8 * 1024;

    public static ArrayPool<byte> Bodies { get; } = ArrayPool<byte>.Create(MaxPooledBytes, ArraysPerSize);
}
