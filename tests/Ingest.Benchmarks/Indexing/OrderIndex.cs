using Ingest.Benchmarks.Documents;
using Ingest.Indexing.Definitions;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The benchmark's index over the generated orders: five fields, one of each kind the issue names. The Lucene and
/// SQLite baselines index the same values (see <see cref="OrderFields"/>).
/// </summary>
internal static class OrderIndex
{
    public static IndexDefinition Definition { get; } = new(
        "Orders/Bench",
        [OrderDataset.Collection],
        [
            new IndexFieldDefinition("Company", "Company", IndexFieldType.Keyword),
            new IndexFieldDefinition("ProductName", "Lines[].ProductName", IndexFieldType.Text),
            new IndexFieldDefinition("Freight", "Freight", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Products", "Lines[].Product", IndexFieldType.Keyword),
        ]);

    public static string Describe() =>
        "Company keyword, Lines[].ProductName text, Freight number, OrderedAt datetime, Lines[].Product keyword array";
}
