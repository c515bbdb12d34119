namespace Ingest.Benchmarks.Budgets;

/// <summary>
/// One budgeted hot path. <see cref="RunRound"/> runs the path a fixed number of times on the calling thread and
/// returns that number; everything the round needs was prepared beforehand, so what it allocates is the path's own.
/// </summary>
/// <param name="path">The name in the budgets file, "area/what".</param>
/// <param name="operation">What one operation is, for the table ("commit", "document", ...).</param>
/// <param name="counter">The allocation counter that sees all of the path's work.</param>
/// <param name="runRound">Runs one round; returns its operation count.</param>
/// <param name="warmupRounds">
/// For a path that grows what it writes to (a tree, a store), a fixed number of warm-up rounds, so the recorded rounds
/// always meet the same state whatever the machine's speed; null warms up for a while instead (the state does not change).
/// </param>
internal sealed class AllocationProbe(string path, string operation, AllocationCounter counter, Func<long> runRound, int? warmupRounds = null)
{
    public string Path { get; } = path;

    public string Operation { get; } = operation;

    public AllocationCounter Counter { get; } = counter;

    public int? WarmupRounds { get; } = warmupRounds;

    public long RunRound() => runRound();
}
