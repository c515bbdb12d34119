namespace Ingest.Benchmarks.Baselines.Lmdb;

internal sealed record LmdbEnvironmentOptions
{
    /// <summary>Size of the memory map, i.e. the largest the data file may grow. Address space only.</summary>
    public long MapSize { get; init; } = 64L << 30;

    public int MaxReaders { get; init; } = 126;

    public int MaxDatabases { get; init; } = 16;

    /// <summary>Durable defaults plus <see cref="LmdbEnvironmentFlags.NoTls"/> so read transactions can be reset and renewed on any thread.</summary>
    public LmdbEnvironmentFlags Flags { get; init; } = LmdbEnvironmentFlags.NoTls;
}
