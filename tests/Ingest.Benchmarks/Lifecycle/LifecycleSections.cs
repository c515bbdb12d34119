namespace Ingest.Benchmarks.Lifecycle;

/// <summary>Every section of the lifecycle benchmark, in the order they run.</summary>
internal static class LifecycleSections
{
    public static IReadOnlyList<ILifecycleSection> All { get; } =
    [
        new Compression.CompressionSection(),
        new Expiration.ExpirationSection(),
        new Disk.IndexDiskSection(),
    ];
}
