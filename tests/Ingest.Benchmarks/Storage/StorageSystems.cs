using Ingest.Benchmarks.Baselines.Disk;
using Ingest.Benchmarks.Baselines.Lmdb;
using Ingest.Benchmarks.Baselines.Sqlite;

namespace Ingest.Benchmarks.Storage;

internal static class StorageSystems
{
    /// <summary>Every system, in column order.</summary>
    public static IReadOnlyList<StorageSystemRegistration> All { get; } =
    [
        new("ingest", directory => new IngestStorageSystem(directory)),
        new("lmdb", directory => new LmdbStorageSystem(directory)),
        new("sqlite", directory => new SqliteStorageSystem(directory)),
        new("disk", directory => new DiskSyncBaseline(directory)),
    ];
}
