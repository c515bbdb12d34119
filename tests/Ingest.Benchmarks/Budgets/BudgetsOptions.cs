namespace Ingest.Benchmarks.Budgets;

/// <summary>The budgets command's options.</summary>
internal sealed record BudgetsOptions
{
    /// <summary>The budgets file to check against; null measures and prints only.</summary>
    public string? CheckPath { get; init; }

    public string? JsonPath { get; init; }

    /// <summary>The stores get a fresh directory under this one, deleted after the run.</summary>
    public string BaseDirectory { get; init; } = Path.GetTempPath();

    /// <summary>The paths to measure; null means all.</summary>
    public IReadOnlySet<string>? Paths { get; init; }

    public int Seed { get; init; }
}
