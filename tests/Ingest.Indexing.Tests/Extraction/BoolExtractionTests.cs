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

    [Theory]
    [InlineData("\"true\"")]
    [InlineData("1")]
    [InlineData("0")]
    public void A_bool_field_skips_and_counts_values_that_are_not_booleans(string value)
    {
        var extracted = Extracted.From($$"""{"B":{{value}}}""", "B", IndexFieldType.Bool);

        Assert.Empty(extracted.Terms);
        Assert.Equal(1, extracted.Result.WrongTypeCount);
    }
}
