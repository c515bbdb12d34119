namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// One budgeted hot path. <see cref="RunRound"/> runs the path a fixed number of times on the calling thread and
/// returns that number; everything the round needs was prepared beforehand, so what it allocates is the path's own.
/// </summary>
/// <param name="path">The name in the budgets file, "area/what".</param>
/// <param name="operation">What one operation is, for the table ("commit", "document", ...).</param>
/// <param name="counter">The allocation counter that sees all of the path's work.</param>
/// <param name="runRound">Runs one round; returns its operation count.</param>
internal sealed class AllocationProbe(string path, string operation, AllocationCounter counter, Func<long> runRound)
{
    public string Path { get; } = path;

    public string Operation { get; } = operation;

    public AllocationCounter Counter { get; } = counter;

    public long RunRound() => runRound();
}
