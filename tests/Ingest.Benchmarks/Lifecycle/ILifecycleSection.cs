namespace Ingest.Benchmarks.Lifecycle;

/// <summary>
/// One part of the lifecycle benchmark (compression, expiration, disk): it runs its own systems side by side,
/// warms every cell up untimed first, and returns its rows and the targets as ratios.
/// </summary>
internal interface ILifecycleSection
{
    /// <summary>Shown in the log and the table, e.g. "compression".</summary>
    string Name { get; }

    /// <summary>The JSON workload names the section writes (fixed: independent checks read them).</summary>
    IReadOnlyList<string> Workloads { get; }

    /// <summary>The JSON system names the section writes.</summary>
    IReadOnlyList<string> Systems { get; }

    LifecycleSectionResult Run(LifecycleContext context);
}
