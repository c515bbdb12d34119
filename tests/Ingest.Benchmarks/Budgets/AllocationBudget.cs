namespace Ingest.Benchmarks.Budgets;

/// <summary>One checked-in budget: a hot path may allocate at most <paramref name="BytesPerOp"/> bytes per operation.</summary>
/// <param name="Path">The measured path, e.g. <c>storage/point-read</c>.</param>
/// <param name="BytesPerOp">The most the path may allocate per operation.</param>
/// <param name="Why">One line: what the path allocates today and the margin on top.</param>
internal sealed record AllocationBudget(string Path, double BytesPerOp, string Why);
