using System.Buffers;
using System.Text;

namespace Ingest.Indexing.Terms;

/// <summary>
/// Lower-cases UTF-8 with the invariant culture's simple (one-to-one) mapping, straight from bytes to bytes: ASCII runs
/// go through the vectorized <see cref="Ascii.ToLower(ReadOnlySpan{byte}, Span{byte}, out int)"/>, anything else one
/// <see cref="Rune"/> at a time. No string per value. Invalid UTF-8 becomes U+FFFD.
/// </summary>
internal static class Utf8CaseFolding
{
    /// <summary>
    /// A lower-case character can take more bytes than its upper case (U+023A, 2 bytes, lower-cases to U+2C65, 3 bytes),
    /// never more than 3 for 2; invalid single bytes become the 3-byte U+FFFD.
    /// </summary>
    public static int MaxFoldedLength(int sourceLength) => sourceLength * 3;

    /// <summary>Writes the lower case of <paramref name="source"/> to <paramref name="destination"/> (at least <see cref="MaxFoldedLength"/> long) and returns its length.</summary>
    public static int ToLowerInvariant(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        var read = 0;
        var written = 0;
        while (read < source.Length)
        {
            var status = Ascii.ToLower(source[read..], destination[written..], out var asciiWritten);
            read += asciiWritten;
            written += asciiWritten;
            if (status == OperationStatus.Done)
            {
                break;
            }

            // A non-ASCII character at read.
            if (Rune.DecodeFromUtf8(source[read..], out var rune, out var consumed) != OperationStatus.Done)
            {
                rune = Rune.ReplacementChar;
            }

            read += consumed;
            written += Rune.ToLowerInvariant(rune).EncodeToUtf8(destination[written..]);
        }

        return written;
    }
}
