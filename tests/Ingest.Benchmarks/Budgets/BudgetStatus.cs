namespace Ingest.Benchmarks.Budgets;

internal enum BudgetStatus
{
    /// <summary>Measured at or under its budget.</summary>
    Ok,

    /// <summary>Measured above its budget: an allocation regression.</summary>
    Over,

    /// <summary>Budgeted, but this run did not measure it (a probe was removed or renamed).</summary>
    Missing,

    /// <summary>Measured, but the file has no budget for it (a new probe needs one).</summary>
    Unbudgeted,
}
