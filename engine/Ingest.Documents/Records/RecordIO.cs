using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>Raw reads and writes of the fixed-size record structs.</summary>
internal static class RecordIO
{
    public static T Read<T>(ReadOnlySpan<byte> value)
        where T : struct => MemoryMarshal.Read<T>(value);

    public static void Write<T>(Span<byte> destination, in T record)
        where T : struct => MemoryMarshal.Write(destination, in record);

    public static ReadOnlySpan<byte> AsBytes<T>(ref T record)
        where T : struct => MemoryMarshal.AsBytes(new Span<T>(ref record));
}
