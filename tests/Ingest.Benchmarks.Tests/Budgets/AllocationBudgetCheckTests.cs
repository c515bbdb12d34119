using Ingest.Benchmarks.Budgets;

namespace Ingest.Benchmarks.Tests.Budgets;

/// <summary>The CI's allocation budgets: a figure over its budget, a budget nobody measured, or a path without a budget fails the check.</summary>
public sealed class AllocationBudgetCheckTests
{
    private static readonly AllocationBudget[] Budgets =
    [
        new("storage/point-read", 8, "0 B measured + margin"),
        new("storage/single-commit-durable", 659, "619.5 B measured + margin"),
    ];

    [Fact]
    public void A_path_that_allocates_more_than_its_budget_fails_the_check()
    {
        var verdicts = AllocationBudgetCheck.Compare([Measured("storage/point-read", 0), Measured("storage/single-commit-durable", 659.1)], Budgets);

        var over = Assert.Single(verdicts, v => v.Status != BudgetStatus.Ok);
        Assert.Equal(("storage/single-commit-durable", BudgetStatus.Over), (over.Path, over.Status));
        Assert.False(AllocationBudgetCheck.AllPassed(verdicts));
    }

    [Fact]
    public void Paths_at_or_under_their_budgets_pass()
    {
        var verdicts = AllocationBudgetCheck.Compare([Measured("storage/point-read", 8), Measured("storage/single-commit-durable", 617.1)], Budgets);

        Assert.All(verdicts, v => Assert.Equal(BudgetStatus.Ok, v.Status));
        Assert.True(AllocationBudgetCheck.AllPassed(verdicts));
    }

    [Fact]
    public void A_budgeted_path_the_run_did_not_measure_fails_as_missing()
    {
        var verdicts = AllocationBudgetCheck.Compare([Measured("storage/point-read", 0)], Budgets);

        var missing = Assert.Single(verdicts, v => v.Status != BudgetStatus.Ok);
        Assert.Equal(("storage/single-commit-durable", BudgetStatus.Missing), (missing.Path, missing.Status));
        Assert.Null(missing.Measured);
        Assert.False(AllocationBudgetCheck.AllPassed(verdicts));
    }

    [Fact]
    public void A_measured_path_without_a_budget_fails_as_unbudgeted()
    {
        var verdicts = AllocationBudgetCheck.Compare(
            [Measured("storage/point-read", 0), Measured("storage/single-commit-durable", 600), Measured("storage/new-path", 0)], Budgets);

        var unbudgeted = Assert.Single(verdicts, v => v.Status != BudgetStatus.Ok);
        Assert.Equal(("storage/new-path", BudgetStatus.Unbudgeted), (unbudgeted.Path, unbudgeted.Status));
        Assert.False(AllocationBudgetCheck.AllPassed(verdicts));
    }

    [Fact]
    public void A_budget_outside_the_paths_a_run_was_asked_for_is_not_missing()
    {
        var selected = new HashSet<string>(StringComparer.Ordinal) { "storage/point-read" };

        var verdicts = AllocationBudgetCheck.Compare([Measured("storage/point-read", 0)], Budgets, selected);

        Assert.Equal("storage/point-read", Assert.Single(verdicts).Path);
        Assert.True(AllocationBudgetCheck.AllPassed(verdicts));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(46.3)]
    [InlineData(300)]
    public void The_margin_stays_below_one_more_object_per_operation_on_small_paths(double measured)
    {
        // The smallest object on 64-bit .NET is 24 bytes: one more per operation must be over the budget.
        var budget = AllocationBudgetCheck.WithMargin(measured);

        Assert.True(budget >= measured + 8);
        Assert.True(measured + 24 > budget, $"a budget of {budget} B for {measured} B measured would hide a new 24-byte object per operation");
    }

    private static AllocationMeasurement Measured(string path, double bytesPerOp) => new(path, bytesPerOp, bytesPerOp, "op", "thread");
}
