using Ingest.Indexing.Definitions;

namespace Ingest.Query.Tests.Model;

/// <summary>The static index of the model test: every field type, a nested path, arrays, an exact-case keyword, names unlike paths.</summary>
internal static class ModelIndex
{
    public const string Name = "Orders/Model";

    public const string Collection = "Orders";

    public static readonly IndexDefinition Definition = new(
        Name,
        [Collection],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Code", "Code", IndexFieldType.Keyword, ExactCase: true),
            new IndexFieldDefinition("Customer", "Customer.Name", IndexFieldType.Keyword),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("Qty", "Lines[].Qty", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
        ]);

    public static IndexFieldDefinition Field(string name) => Definition.Fields.First(f => f.Name == name);
}
