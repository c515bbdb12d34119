using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text.Unicode;

namespace Ingest.Documents.Json;

/// <summary>
/// Strict UTF-8 checks that say where the first bad byte is. <c>Utf8JsonReader</c> checks JSON
/// structure but not the bytes inside strings, so without this a body with <c>FF</c>, an overlong
/// <c>C0 AF</c>, an encoded surrogate <c>ED A0 80</c> or a cut-off sequence would pass as JSON.
/// The store's batch validation uses it, and so does the server (its message mapper, percent-decoded ids).
/// </summary>
public static class Utf8Validation
{
    /// <summary>The offset of the first byte that does not start a valid UTF-8 sequence, or -1 when all of it is valid.</summary>
    /// <remarks>The common case is one vectorised pass that allocates nothing; only a bad body pays for locating the byte.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int IndexOfInvalid(ReadOnlySpan<byte> utf8) => Utf8.IsValid(utf8) ? -1 : LocateInvalid(utf8);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int LocateInvalid(ReadOnlySpan<byte> utf8)
    {
        // The transcoder stops at the first invalid sequence and says how many bytes it consumed.
        Span<char> scratch = stackalloc char[256];
        var offset = 0;
        OperationStatus status;
        do
        {
            status = Utf8.ToUtf16(utf8[offset..], scratch, out var read, out _, replaceInvalidSequences: false, isFinalBlock: true);
            offset += read;
        }
        while (status == OperationStatus.DestinationTooSmall);

        return status == OperationStatus.Done ? -1 : offset;
    }
}
