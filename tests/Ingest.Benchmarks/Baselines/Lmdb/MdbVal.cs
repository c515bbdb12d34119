using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>lmdb.h's <c>MDB_val</c>: { size_t mv_size; void *mv_data; }.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct MdbVal
{
    public nuint Size;
    public byte* Data;

    public MdbVal(byte* data, int size)
    {
        Data = data;
        Size = (nuint)size;
    }

    public readonly ReadOnlySpan<byte> AsSpan() => new(Data, checked((int)Size));
}
