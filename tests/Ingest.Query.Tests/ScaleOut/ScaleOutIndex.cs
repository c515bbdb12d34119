using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>The static index every shard and the single node define: keywords (one multi-valued), numbers, a datetime, a bool, text.</summary>
internal static class ScaleOutIndex
{
    public const string Name = "Orders/Sharded";

    public const string Collection = "Orders";

    public static readonly IndexDefinition Definition = new(
        Name,
        [Collection],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Customer", "Customer", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("Qty", "Qty", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
        ]);

    /// <summary>The field of that name (index names equal the documents' top-level property names here).</summary>
    public static IndexFieldDefinition Field(string name) =>
        Definition.Fields.First(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase));
}
