namespace Ingest.Benchmarks.Budgets;

/// <summary>Compares a run's measurements with the budgets: one verdict per path that either side names.</summary>
internal static class AllocationBudgetCheck
{
    /// <param name="measured">What this run measured.</param>
    /// <param name="budgets">The checked-in budgets.</param>
    /// <param name="selected">
    /// The paths this run was asked to measure, or null for all: a budget outside the selection is not missing.
    /// </param>
    public static IReadOnlyList<BudgetVerdict> Compare(
        IReadOnlyList<AllocationMeasurement> measured, IReadOnlyList<AllocationBudget> budgets, IReadOnlySet<string>? selected = null)
    {
        ArgumentNullException.ThrowIfNull(measured);
        ArgumentNullException.ThrowIfNull(budgets);
        var byPath = new Dictionary<string, AllocationBudget>(StringComparer.Ordinal);
        foreach (var budget in budgets)
        {
            byPath[budget.Path] = budget;
        }

        var verdicts = new List<BudgetVerdict>();
        var measuredPaths = new HashSet<string>(StringComparer.Ordinal);
        foreach (var measurement in measured)
        {
            measuredPaths.Add(measurement.Path);
            if (!byPath.TryGetValue(measurement.Path, out var budget))
            {
                verdicts.Add(new BudgetVerdict(measurement.Path, measurement, null, BudgetStatus.Unbudgeted));
                continue;
            }

            var status = measurement.BytesPerOp > budget.BytesPerOp ? BudgetStatus.Over : BudgetStatus.Ok;
            verdicts.Add(new BudgetVerdict(measurement.Path, measurement, budget, status));
        }

        foreach (var budget in budgets)
        {
            if (!measuredPaths.Contains(budget.Path) && (selected is null || selected.Contains(budget.Path)))
            {
                verdicts.Add(new BudgetVerdict(budget.Path, null, budget, BudgetStatus.Missing));
            }
        }

        return verdicts;
    }

    /// <summary>
    /// The budget a measurement sets: +5% for run-to-run spread, plus 8 bytes so a path that allocates nothing per
    /// operation is not failed by one-off runtime bytes spread over a round. Both stay below the smallest object
    /// (24 bytes) on paths under 320 B/op, so any new per-operation allocation there is over budget.
    /// </summary>
    public static double WithMargin(double measuredBytesPerOp) => Math.Ceiling((measuredBytesPerOp * 1.05) + 8);

    public static bool AllPassed(IReadOnlyList<BudgetVerdict> verdicts)
    {
        ArgumentNullException.ThrowIfNull(verdicts);
        foreach (var verdict in verdicts)
        {
            if (!verdict.Passed)
            {
                return false;
            }
        }

        return true;
    }
}
