using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class DateTimeExtractionTests
{
    private static readonly long Noon = new DateTime(2024, 3, 1, 12, 0, 0, DateTimeKind.Utc).Ticks;

    [Theory]
    [InlineData("\"2024-03-01T12:00:00Z\"")]
    [InlineData("\"2024-03-01T14:00:00+02:00\"")]
    [InlineData("\"2024-03-01T07:00:00-05:00\"")]
    [InlineData("\"2024-03-01T12:00:00.0000000+00:00\"")]
    [InlineData("\"2024-03-01T12:00:00\"")] // no offset: taken as UTC
    [InlineData("\"2024-03-01T12:00\"")]
    [InlineData("\"2024-03-01T12:00:00\\u002B00:00\"")] // escaped '+'
    [InlineData("1709294400000")] // epoch milliseconds
    public void Iso_strings_with_any_offset_and_epoch_millis_become_utc_ticks(string value)
    {
        var term = Assert.Single(Extracted.From($$"""{"At":{{value}}}""", "At", IndexFieldType.DateTime).Terms);

        Assert.Equal(DateTimeTerm.Size, term.Length);
        Assert.Equal(Noon, DateTimeTerm.Read(term));
    }

    [Fact]
    public void Fractions_and_dates_without_a_time_are_kept_to_the_tick()
    {
        var extracted = Extracted.From("""{"At":["2024-03-01T12:00:00.1234567Z","2024-03-01","1969-12-31T23:59:59.999Z",-1]}""", "At[]", IndexFieldType.DateTime);

        Assert.Equal(
            [Noon + 1_234_567, new DateTime(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc).Ticks, DateTime.UnixEpoch.Ticks - 10_000, DateTime.UnixEpoch.Ticks - 10_000],
            extracted.Terms.Select(t => DateTimeTerm.Read(t)));
    }

    [Fact]
    public void Keys_order_as_time_does_and_are_drawn_as_the_layout_comment_shows()
    {
        var extracted = Extracted.From(
            """{"At":["0001-01-01T00:00:00Z","1970-01-01T00:00:00Z","2024-03-01T11:59:59.9999999Z","2024-03-01T13:00:00+01:00","9999-12-31T23:59:59.9999999Z"]}""",
            "At[]",
            IndexFieldType.DateTime);

        Assert.Equal(Convert.FromHexString("8000000000000000"), extracted.Terms[0]);
        Assert.Equal(Convert.FromHexString("889F7FF5F7B58000"), extracted.Terms[1]);
        for (var i = 1; i < extracted.Terms.Count; i++)
        {
            Assert.True(extracted.Terms[i - 1].AsSpan().SequenceCompareTo(extracted.Terms[i]) < 0, $"term {i - 1} < term {i}");
        }
    }

    [Fact]
    public void The_epoch_millis_range_ends_where_datetime_does()
    {
        var extracted = Extracted.From("""{"At":[-62135596800000, 253402300799999, -62135596800001, 253402300800000]}""", "At[]", IndexFieldType.DateTime);

        Assert.Equal([0L, DateTime.MaxValue.Ticks - 9_999], extracted.Terms.Select(t => DateTimeTerm.Read(t)));
        Assert.Equal(2, extracted.Result.WrongTypeCount);
    }
}
