using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class KeywordExtractionTests
{
    [Fact]
    public void A_keyword_is_lower_cased_by_default()
    {
        Assert.Equal(["shipped to acme"], Extracted.From("""{"S":"Shipped TO Acme"}""", "S", IndexFieldType.Keyword).Strings);
    }

    [Fact]
    public void An_exact_case_keyword_keeps_its_case()
    {
        Assert.Equal(["Shipped TO Acme"], Extracted.From("""{"S":"Shipped TO Acme"}""", "S", IndexFieldType.Keyword, exactCase: true).Strings);
    }

    [Theory]
    [InlineData("ÄÖÜ Straße", "äöü straße")]
    [InlineData("ΑΘΗΝΑ", "αθηνα")]
    [InlineData("ПРИВЕТ", "привет")]
    [InlineData("\U00010400", "\U00010428")] // Deseret, outside the BMP
    [InlineData("\u023A", "\u2C65")] // two UTF-8 bytes lower-case to three
    [InlineData("\u212A", "k")] // Kelvin sign: three bytes lower-case to one
    [InlineData("東京", "東京")]
    [InlineData("", "")]
    public void Keywords_fold_case_across_scripts(string value, string expected)
    {
        var json = JsonEncode(value);

        var extracted = Extracted.From($$"""{"S":{{json}}}""", "S", IndexFieldType.Keyword);

        Assert.Equal([expected], extracted.Strings);
        Assert.Equal(value.ToLowerInvariant(), expected); // the same fold as the invariant culture's
    }

    [Fact]
    public void Escaped_strings_are_unescaped_before_folding()
    {
        var extracted = Extracted.From("""{"S":"A\u00C9\"B\\\n"}""", "S", IndexFieldType.Keyword);

        Assert.Equal(["aé\"b\\\n"], extracted.Strings);
    }

    [Fact]
    public void Long_keywords_are_cut_at_the_term_limit_without_splitting_a_character()
    {
        var value = new string('a', TermLimits.MaxTermBytes - 1) + "é" + "zzz"; // é straddles the limit

        var term = Assert.Single(Extracted.From($$"""{"S":"{{value}}"}""", "S", IndexFieldType.Keyword).Terms);
        var exactTerm = Assert.Single(Extracted.From($$"""{"S":"{{value}}"}""", "S", IndexFieldType.Keyword, exactCase: true).Terms);

        Assert.Equal(TermLimits.MaxTermBytes - 1, term.Length);
        Assert.Equal(term, exactTerm);
        Assert.Equal(new string('a', TermLimits.MaxTermBytes - 1), Encoding.UTF8.GetString(term));
    }

    [Fact]
    public void A_very_long_keyword_of_shrinking_characters_still_fills_the_term()
    {
        var value = new string('\u212A', 5000); // 3 bytes each, 1 byte folded

        var term = Assert.Single(Extracted.From($$"""{"S":"{{value}}"}""", "S", IndexFieldType.Keyword).Terms);

        Assert.Equal(new string('k', TermLimits.MaxTermBytes), Encoding.UTF8.GetString(term));
    }

    [Fact]
    public void Invalid_utf8_folds_to_the_replacement_character()
    {
        var folded = new byte[12];
        var length = Utf8CaseFolding.ToLowerInvariant([(byte)'A', 0xFF, (byte)'B'], folded);

        Assert.Equal("a\uFFFDb", Encoding.UTF8.GetString(folded, 0, length));
    }

    private static string JsonEncode(string value) => System.Text.Json.JsonSerializer.Serialize(value);
}
