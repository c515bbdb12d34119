using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Indexing.Runtime;

namespace Ingest.Indexing.CrashWorker;

/// <summary>What the crash worker indexes, shared with the test that checks it.</summary>
internal static class CrashIndexes
{
    public const string Name = "Orders/Crash";

    public static readonly IndexDefinition A = new(
        Name,
        ["Orders"],
        [
            new IndexFieldDefinition("Customer", "Customer.Name", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("At", "At", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Qty", "Lines[].Qty", IndexFieldType.Number),
            new IndexFieldDefinition("Sku", "Lines[].Sku", IndexFieldType.Keyword, ExactCase: true),
        ]);

    /// <summary>
    /// A changed definition (other collections, fewer fields, and a reduce: a map-reduce index): putting it starts a
    /// side-by-side rebuild, so kills land in map-reduce batches and in swaps between a map and a map-reduce build.
    /// </summary>
    public static readonly IndexDefinition B = A with
    {
        Collections = ["Orders", "Archive"],
        Fields = [.. A.Fields.Where(f => f.Name != "Notes")],
        Reduce = new ReduceDefinition(
            [new GroupKeyDefinition("Customer", "Customer"), new GroupKeyDefinition("Hour", "At", "1h")],
            [
                new AggregateDefinition("Orders", AggregateKind.Count),
                new AggregateDefinition("Revenue", AggregateKind.Sum, "Total"),
                new AggregateDefinition("Average", AggregateKind.Avg, "Total"),
                new AggregateDefinition("Smallest", AggregateKind.Min, "Total"),
                new AggregateDefinition("Largest", AggregateKind.Max, "Total"),
                new AggregateDefinition("Skus", AggregateKind.CountDistinct, "Sku"),
                new AggregateDefinition("Latest", AggregateKind.Max, "At"),
            ]),
    };

    /// <summary>Small batches, so a run commits many times and a kill lands between and inside commits.</summary>
    public static IndexingOptions Options => new() { BatchMemoryBudgetBytes = 512 * 1024 };

    /// <summary>The definition a worker started with <paramref name="seed"/> puts.</summary>
    public static IndexDefinition For(int seed) => seed % 3 == 0 ? B : A;

    public static string StoreDirectory(string root) => Path.Combine(root, "docs");

    public static string IndexesDirectory(string root) => Path.Combine(root, "indexes");
}
