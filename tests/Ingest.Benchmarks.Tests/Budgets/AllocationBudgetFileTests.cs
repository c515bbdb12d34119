using Ingest.Benchmarks.Budgets;

namespace Ingest.Benchmarks.Tests.Budgets;

/// <summary>The checked-in budgets file: every mistake in it is an error naming the entry, never a silently missing budget.</summary>
public sealed class AllocationBudgetFileTests
{
    [Fact]
    public void Entries_are_read_with_their_path_budget_and_why()
    {
        var budgets = AllocationBudgetFile.Parse(
            """
            {
              // comments are allowed, for the file's header
              "budgets": [
                { "path": "storage/point-read", "bytesPerOp": 8, "why": "0 B measured + margin" },
                { "path": "ingest/mapper-kafka-put", "bytesPerOp": 76.5, "why": "the id string" },
              ]
            }
            """,
            "test.json");

        Assert.Equal(
            [new AllocationBudget("storage/point-read", 8, "0 B measured + margin"), new AllocationBudget("ingest/mapper-kafka-put", 76.5, "the id string")],
            budgets);
    }

    [Theory]
    [InlineData("""{ "budgets": [ { "path": "a/b", "bytesPerOp": 8 } ] }""", "entry 0: a/b needs a why")]
    [InlineData("""{ "budgets": [ { "path": "a/b", "bytesPerOp": -1, "why": "w" } ] }""", "entry 0: a/b needs a bytesPerOp of 0 or more")]
    [InlineData("""{ "budgets": [ { "path": "a/b", "bytesPerop": 8, "why": "w" } ] }""", "entry 0: unexpected bytesPerop")]
    [InlineData("""{ "budgets": [ { "path": "a/b", "bytesPerOp": "8", "why": "w" } ] }""", "entry 0: unexpected bytesPerOp (String)")]
    [InlineData("""{ "budgets": [ { "bytesPerOp": 8, "why": "w" } ] }""", "entry 0: has no path")]
    [InlineData("""{ "budgets": [ { "path": "a/b", "bytesPerOp": 8, "why": "w" }, { "path": "a/b", "bytesPerOp": 9, "why": "w" } ] }""", "entry 1 repeats the path a/b")]
    [InlineData("""{ "paths": [] }""", "expected an object with a \"budgets\" array")]
    [InlineData("""{ "budgets": [ { "path": "a/b", """, "not valid JSON (line 1)")]
    public void A_mistake_in_the_file_is_an_error_that_names_it(string json, string expected)
    {
        var error = Assert.Throws<InvalidDataException>(() => AllocationBudgetFile.Parse(json, "budgets.json"));

        Assert.Contains("allocation budgets file budgets.json", error.Message, StringComparison.Ordinal);
        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_file_is_an_error_that_names_it()
    {
        using var directory = new TestDirectory();
        var path = directory.Combine("no-budgets.json");

        var error = Assert.Throws<InvalidDataException>(() => AllocationBudgetFile.Load(path));

        Assert.Contains($"allocation budgets file {path}: cannot be read", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_checked_in_file_reads_and_budgets_every_hot_path_of_the_issue()
    {
        var budgets = AllocationBudgetFile.Load(Path.Combine(AppContext.BaseDirectory, "Budgets", "allocation-budgets.json"));

        var paths = budgets.Select(b => b.Path).ToHashSet(StringComparer.Ordinal);
        Assert.Superset(
            new HashSet<string>(StringComparer.Ordinal)
            {
                "storage/read-txn-open-dispose", "storage/point-read", "storage/batched-put-durable", "storage/single-commit-durable",
                "documents/get-by-id", "documents/put-batched", "ingest/mapper-kafka-put", "ingest/batcher-add",
            },
            paths);
    }
}
