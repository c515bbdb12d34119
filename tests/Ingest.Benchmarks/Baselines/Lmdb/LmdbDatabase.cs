namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>An <c>MDB_dbi</c>: valid in every transaction of its environment once the transaction that opened it committed.</summary>
internal readonly record struct LmdbDatabase(uint Handle);
