namespace Ingest.Benchmarks.Lifecycle;

/// <summary>One of the targets, as measured: "compress-orders: uncompressed bytes / ingest bytes = 2.31, target >= 2".</summary>
/// <param name="Workload">The workload the ratio comes from.</param>
/// <param name="Description">What was divided by what.</param>
/// <param name="Ratio">The measured ratio.</param>
/// <param name="Target">The ratio the issue asks for; met when <paramref name="Ratio"/> is at least this (or, with <paramref name="AtMost"/>, at most).</param>
/// <param name="AtMost">The target is an upper bound (bytes on disk), not a lower one.</param>
internal sealed record LifecycleCheck(string Workload, string Description, double Ratio, double Target, bool AtMost = false)
{
    public bool Met => AtMost ? Ratio <= Target : Ratio >= Target;
}
