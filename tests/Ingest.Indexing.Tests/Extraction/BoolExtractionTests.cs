using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class BoolExtractionTests
{
    [Fact]
    public void True_and_false_are_one_byte_with_false_first()
    {
        var extracted = Extracted.From("""{"B":[true,false]}""", "B[]", IndexFieldType.Bool);

        Assert.Equal([[0x01], [0x00]], extracted.Terms);
    }
}
