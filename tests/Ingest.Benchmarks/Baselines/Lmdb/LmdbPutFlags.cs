namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>Flags of <c>mdb_put</c> (lmdb.h, "Write Flags").</summary>
[Flags]
internal enum LmdbPutFlags : uint
{
    None = 0,
    NoOverwrite = 0x10,
    Append = 0x20000,
}
