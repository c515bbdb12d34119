using Ingest.Benchmarks.Baselines.Disk;
using Ingest.Benchmarks.Baselines.Lmdb;
using Ingest.Benchmarks.Baselines.Sqlite;

namespace Ingest.Benchmarks.Storage;

internal static class StorageSystems
{
    /// <summary>Every system, in column order.</summary>
    public static IReadOnlyList<StorageSystemRegistration> All { get; } =
    [
        // The Ingest engine's slot. When engine/Ingest.Storage has its StorageEnvironment API, add
        // Storage/IngestStorageSystem.cs implementing IKeyValueStore (and IPostingListStore once
        // PostingList lands; until then the postinglist-* rows say "n/a") and replace null with
        //     directory => new IngestStorageSystem(directory)
        // Use the engine's durable default sync mode, as the baselines use theirs.
        new("ingest", Open: null),
        new("lmdb", directory => new LmdbStorageSystem(directory)),
        new("sqlite", directory => new SqliteStorageSystem(directory)),
        new("disk", directory => new DiskSyncBaseline(directory)),
    ];
}
