namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>Flags of <c>mdb_env_open</c> (lmdb.h, "Environment Flags").</summary>
[Flags]
internal enum LmdbEnvironmentFlags : uint
{
    None = 0,
    NoSubDir = 0x4000,
    /// <summary>Not durable: commits skip the sync. The benchmark never sets it.</summary>
    NoSync = 0x10000,
    ReadOnly = 0x20000,
    NoMetaSync = 0x40000,
    WriteMap = 0x80000,
    MapAsync = 0x100000,
    /// <summary>Reader slots belong to transaction handles, not threads: a reset read transaction may be renewed on any thread.</summary>
    NoTls = 0x200000,
    NoLock = 0x400000,
    NoReadAhead = 0x800000,
    NoMemInit = 0x1000000,
}
