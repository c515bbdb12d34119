using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// The head of a document body stored with <see cref="DocumentFlags.Compressed"/>; the zstd frame follows.
/// <code>
///  0                 4                     8
///  +-----------------+---------------------+---------------------------------------------+
///  | dictionary id   | uncompressed length | zstd frame, magicless, without content size |
///  | u32 (0 = none)  | u32 (JSON bytes)    | or dictionary id (both are here already)    |
///  +-----------------+---------------------+---------------------------------------------+
/// </code>
/// The dictionary id is a key of docs/dictionaries; a reader decompresses with that dictionary into a
/// buffer of exactly the uncompressed length, and anything else is damage.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct CompressedBodyHeader
{
    public const int Size = 8;

    public uint DictionaryId;
    public int UncompressedLength;

    public static CompressedBodyHeader Read(ReadOnlySpan<byte> body)
    {
        if (body.Length < Size)
        {
            throw new InvalidDataException($"A compressed body holds {body.Length} bytes, fewer than its {Size}-byte header.");
        }

        return MemoryMarshal.Read<CompressedBodyHeader>(body);
    }
}
