using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Tests.Extraction;

/// <summary>A value a field's type does not take is skipped and counted, never an error, and never a term.</summary>
public sealed class WrongTypeTests
{
    [Theory]
    [InlineData(IndexFieldType.Bool, "\"true\"")]
    [InlineData(IndexFieldType.Bool, "1")]
    [InlineData(IndexFieldType.Bool, "0")]
    [InlineData(IndexFieldType.DateTime, "\"not a date\"")]
    [InlineData(IndexFieldType.DateTime, "\"2024-13-01T00:00:00Z\"")]
    [InlineData(IndexFieldType.DateTime, "\"2024-03-01T12:00:00+25:00\"")]
    [InlineData(IndexFieldType.DateTime, "\"03/01/2024\"")]
    [InlineData(IndexFieldType.DateTime, "\"2024-03-01T12:00:00z\"")] // ISO 8601 (unlike RFC 3339) has only an upper-case Z
    [InlineData(IndexFieldType.DateTime, "\"\"")]
    [InlineData(IndexFieldType.DateTime, "1.5")]
    [InlineData(IndexFieldType.DateTime, "true")]
    [InlineData(IndexFieldType.Keyword, "5")]
    [InlineData(IndexFieldType.Keyword, "true")]
    [InlineData(IndexFieldType.Number, "\"5\"")]
    [InlineData(IndexFieldType.Number, "true")]
    [InlineData(IndexFieldType.Number, "\"NaN\"")]
    [InlineData(IndexFieldType.Text, "42")]
    [InlineData(IndexFieldType.Text, "false")]
    public void A_value_of_the_wrong_type_is_skipped_and_counted(IndexFieldType type, string value)
    {
        var extracted = Extracted.From($$"""{"F":{{value}}}""", "F", type);

        Assert.Empty(extracted.Terms);
        Assert.Equal(1, extracted.Result.WrongTypeCount);
        Assert.False(extracted.Result.IsNull);
    }
}
