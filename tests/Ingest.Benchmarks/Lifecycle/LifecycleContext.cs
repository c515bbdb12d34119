namespace Ingest.Benchmarks.Lifecycle;

/// <summary>What a section is given: the run's size, where to put its stores, and the selection it must honour.</summary>
/// <param name="Quick">A short run that checks the section works; its figures are not recorded.</param>
/// <param name="BaseDirectory">Each system makes a fresh directory under this one and deletes it after its run.</param>
/// <param name="Seed">Seeds every generated data set, so runs compare the same documents.</param>
/// <param name="Systems">Systems asked for; empty means all.</param>
/// <param name="Workloads">Workloads asked for; empty means all.</param>
/// <param name="Log">Progress lines (one per measured cell, warm-ups included).</param>
internal sealed record LifecycleContext(
    bool Quick,
    string BaseDirectory,
    int Seed,
    IReadOnlySet<string> Systems,
    IReadOnlySet<string> Workloads,
    TextWriter Log)
{
    public bool Runs(string workload) => Workloads.Count == 0 || Workloads.Contains(workload);

    public bool Runs(string workload, string system) => Runs(workload) && (Systems.Count == 0 || Systems.Contains(system));

    /// <summary>A fresh, empty directory for one system's store.</summary>
    public string NewDirectory(string label)
    {
        var directory = Path.Combine(BaseDirectory, $"ingest-bench-lifecycle-{label}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        return directory;
    }
}
