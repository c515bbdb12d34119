namespace Ingest.Benchmarks.Budgets;

/// <summary>One row of the budgets table: a path, what it allocated, what it may, and whether that passes.</summary>
internal sealed record BudgetVerdict(string Path, AllocationMeasurement? Measured, AllocationBudget? Budget, BudgetStatus Status)
{
    public bool Passed => Status == BudgetStatus.Ok;
}
