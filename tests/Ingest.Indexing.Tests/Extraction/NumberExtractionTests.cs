using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class NumberExtractionTests
{
    [Theory]
    [InlineData("0", 0.0)]
    [InlineData("-0.0", 0.0)]
    [InlineData("42", 42.0)]
    [InlineData("-17", -17.0)]
    [InlineData("99.5", 99.5)]
    [InlineData("1e3", 1000.0)]
    [InlineData("-2.5E-3", -0.0025)]
    [InlineData("9223372036854775807", 9223372036854775807.0)]
    [InlineData("1e308", 1e308)]
    public void Json_numbers_become_eight_byte_keys_that_read_back(string json, double expected)
    {
        var term = Assert.Single(Extracted.From($$"""{"N":{{json}}}""", "N", IndexFieldType.Number).Terms);

        Assert.Equal(NumberTerm.Size, term.Length);
        Assert.Equal(expected, NumberTerm.Read(term));
    }

    [Fact]
    public void An_integer_and_the_same_double_are_one_term()
    {
        var extracted = Extracted.From("""{"N":[1, 1.0, 10e-1, -0.0, 0]}""", "N[]", IndexFieldType.Number);

        Assert.Equal(extracted.Terms[0], extracted.Terms[1]);
        Assert.Equal(extracted.Terms[0], extracted.Terms[2]);
        Assert.Equal(extracted.Terms[3], extracted.Terms[4]);
    }

    [Fact]
    public void Keys_are_drawn_as_the_layout_comment_shows()
    {
        Assert.Equal(Convert.FromHexString("400FFFFFFFFFFFFF"), Key(-1.0));
        Assert.Equal(Convert.FromHexString("8000000000000000"), Key(0.0));
        Assert.Equal(Convert.FromHexString("BFF0000000000000"), Key(1.0));
        Assert.Equal(Convert.FromHexString("C000000000000000"), Key(2L));
    }

    [Fact]
    public void Integers_beyond_two_to_the_53_round_to_the_nearest_double_without_inverting_order()
    {
        const long TwoTo53 = 1L << 53;

        Assert.Equal(Key(TwoTo53), Key(TwoTo53 + 1)); // no double between them: they share a key
        Assert.True(Key(TwoTo53 + 1).AsSpan().SequenceCompareTo(Key(TwoTo53 + 2)) < 0);
        Assert.Equal(Key(long.MaxValue), Key(9223372036854775808.0));
        Assert.Equal(Key(long.MinValue), Key(-9223372036854775808.0));
    }

    [Fact]
    public void A_number_beyond_double_range_sorts_above_every_finite_number()
    {
        var extracted = Extracted.From("""{"N":1e400}""", "N", IndexFieldType.Number);

        var term = Assert.Single(extracted.Terms);
        Assert.True(term.AsSpan().SequenceCompareTo(Key(double.MaxValue)) > 0);
    }

    private static byte[] Key(long value)
    {
        var key = new byte[NumberTerm.Size];
        NumberTerm.Write(value, key);
        return key;
    }

    private static byte[] Key(double value)
    {
        var key = new byte[NumberTerm.Size];
        NumberTerm.Write(value, key);
        return key;
    }
}
