using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

/// <summary>Extraction runs for every field of every document of a batch; once the buffer has grown it allocates nothing.</summary>
public sealed class ExtractionAllocationTests
{
    private static readonly byte[] Document = Encoding.UTF8.GetBytes("""
        {"Customer":{"Name":"ÄCME \u00C9lectrique"},"Notes":"Leave at the DOOR, s\u2019il vous plaît — merci!",
         "Total":1234.5,"Count":17,"OrderedAt":"2024-03-01T14:00:00+02:00","ShippedAt":1709294400000,
         "Tags":["Gift","Fragile",null,5],"Lines":[{"Sku":"A-1","Qty":2},{"Sku":"b-2","Qty":1.5}],"Paid":true}
        """);

    private static readonly CompiledIndexField[] Fields =
    [
        Compile("Customer.Name", IndexFieldType.Keyword),
        Compile("Notes", IndexFieldType.Text),
        Compile("Total", IndexFieldType.Number),
        Compile("Count", IndexFieldType.Number),
        Compile("OrderedAt", IndexFieldType.DateTime),
        Compile("ShippedAt", IndexFieldType.DateTime),
        Compile("Tags[]", IndexFieldType.Keyword),
        Compile("Lines[].Sku", IndexFieldType.Keyword, exactCase: true),
        Compile("Lines[].Qty", IndexFieldType.Number),
        Compile("Paid", IndexFieldType.Bool),
        Compile("Missing.Field", IndexFieldType.Keyword),
    ];

    [Fact]
    public void Extracting_every_type_from_many_documents_allocates_nothing_once_warm()
    {
        using var buffer = new TermBuffer();
        ExtractAll(buffer, documents: 10); // grows the buffer to what the documents need

        var allocated = ThreadAllocations.Measure(() => ExtractAll(buffer, documents: 1000));

        Assert.Equal(0, allocated);
        Assert.True(buffer.Count > 0);
    }

    [Fact]
    public void Extracting_all_fields_in_one_pass_allocates_nothing_once_warm()
    {
        var extractor = new DocumentExtractor(Fields);
        var tallies = new FieldTally[Fields.Length];
        using var buffer = new TermBuffer();
        extractor.Extract(Document, buffer, tallies);

        var allocated = ThreadAllocations.Measure(() =>
        {
            for (var d = 0; d < 1000; d++)
            {
                buffer.Clear();
                extractor.Extract(Document, buffer, tallies);
            }
        });

        Assert.Equal(0, allocated);
        Assert.Equal(2, tallies[6].TermCount); // Tags[]: Gift, Fragile
    }

    private static void ExtractAll(TermBuffer buffer, int documents)
    {
        for (var d = 0; d < documents; d++)
        {
            buffer.Clear();
            foreach (var field in Fields)
            {
                FieldExtractor.Extract(Document, field, buffer);
            }
        }
    }

    private static CompiledIndexField Compile(string path, IndexFieldType type, bool exactCase = false) =>
        CompiledIndexField.Compile(new IndexFieldDefinition(path, path, type, exactCase));
}
