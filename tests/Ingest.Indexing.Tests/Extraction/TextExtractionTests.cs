using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class TextExtractionTests
{
    [Fact]
    public void Text_is_split_on_everything_but_letters_and_digits_and_lower_cased()
    {
        var extracted = Extracted.From("""{"T":"Hello, World! hello-world_42x  (v2.0)"}""", "T", IndexFieldType.Text);

        Assert.Equal(["hello", "world", "hello", "world", "42x", "v2", "0"], extracted.Strings);
    }

    [Theory]
    [InlineData("Crème brûlée — naïve café", "crème|brûlée|naïve|café")]
    [InlineData("ΑΘΗΝΑ, Straße; ПРИВЕТ мир", "αθηνα|straße|привет|мир")]
    [InlineData("東京タワー、大阪", "東京タワー|大阪")] // no dictionary segmenter: one term per run
    [InlineData("fire🔥water", "fire|water")] // symbols separate words
    [InlineData("e\u0301te\u0301", "e\u0301te\u0301")] // combining marks stay in their word
    [InlineData("١٢٣ apples", "١٢٣|apples")] // digits of any script
    [InlineData("don't", "don|t")]
    public void Unicode_text_is_split_into_words_by_category(string value, string expected)
    {
        var extracted = Extracted.From($$"""{"T":{{System.Text.Json.JsonSerializer.Serialize(value)}}}""", "T", IndexFieldType.Text);

        Assert.Equal(expected.Split('|'), extracted.Strings);
    }

    [Theory]
    [InlineData("")]
    [InlineData(" ,.;!? — ")]
    public void Text_without_words_gives_no_terms_and_is_not_null(string value)
    {
        var extracted = Extracted.From($$"""{"T":"{{value}}"}""", "T", IndexFieldType.Text);

        Assert.Empty(extracted.Terms);
        Assert.Equal((0, 0), (extracted.Result.NullCount, extracted.Result.WrongTypeCount));
    }

    [Fact]
    public void Text_over_an_array_gives_the_words_of_every_element()
    {
        var extracted = Extracted.From("""{"Lines":[{"Note":"Gift wrap"},{"Note":12},{"Note":"Leave at door"}]}""", "Lines[].Note", IndexFieldType.Text);

        Assert.Equal(["gift", "wrap", "leave", "at", "door"], extracted.Strings);
        Assert.Equal(1, extracted.Result.WrongTypeCount);
    }

    [Fact]
    public void Escaped_text_is_unescaped_before_splitting()
    {
        Assert.Equal(["tab", "sep", "é"], Extracted.From("""{"T":"tab\tsep \u00C9"}""", "T", IndexFieldType.Text).Strings);
    }
}
