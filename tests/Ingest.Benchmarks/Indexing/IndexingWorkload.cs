namespace Ingest.Benchmarks.Indexing;

/// <summary>One row of the indexing benchmark.</summary>
internal sealed record IndexingWorkload(string Name, string Unit, string Target)
{
    public const string Build = "index-build";
    public const string RebuildCapped = "index-rebuild-capped";
    public const string RebuildUnbounded = "index-rebuild-unbounded";
    public const string Churn = "index-update-churn";
    public const string ChurnOneByOne = "index-update-churn-one-by-one";

    public static IReadOnlyList<IndexingWorkload> All { get; } =
    [
        new(Build, "docs/s", ">= 3x lucene"),
        new(RebuildCapped, "docs/s", string.Empty),
        new(RebuildUnbounded, "docs/s", ">= 2x capped"),
        new(Churn, "changes/s", ">= 5x one-by-one"),
        new(ChurnOneByOne, "changes/s", string.Empty),
    ];
}
