using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>lmdb.h's <c>MDB_stat</c>.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct MdbStat
{
    public uint PageSize;
    public uint Depth;
    public nuint BranchPages;
    public nuint LeafPages;
    public nuint OverflowPages;
    public nuint Entries;
}
