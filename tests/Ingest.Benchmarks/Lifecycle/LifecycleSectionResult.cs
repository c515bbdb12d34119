namespace Ingest.Benchmarks.Lifecycle;

/// <summary>What a section measured: its cells, the targets they are checked against, and any cell that failed.</summary>
internal sealed record LifecycleSectionResult(
    IReadOnlyList<LifecycleRow> Rows,
    IReadOnlyList<LifecycleCheck> Checks,
    IReadOnlyList<string> Errors)
{
    public static LifecycleSectionResult Failed(string section, Exception error) =>
        new([], [], [$"{section}: {error.GetType().Name}: {error.Message}"]);
}
