using System.Text;
using Ingest.Cli.Publishing;

namespace Ingest.Cli.Tests.Publishing;

public sealed class DocumentReaderTests
{
    [Fact]
    public void Single_document_takes_its_id_from_the_option()
    {
        var result = Read(new DocumentReaderOptions(Lines: false, Id: "orders/1", IdProperty: null), "{\"total\": 10}");

        var document = Assert.Single(result.Documents);
        Assert.Equal("orders/1", document.Id);
        Assert.Equal("{\"total\": 10}", Text(document));
        Assert.Empty(result.Errors);
    }

    [Fact]
    public void Single_document_may_span_lines_and_its_body_is_trimmed()
    {
        const string Json = "\n{\n  \"id\": \"orders/1\",\n  \"lines\": [1, 2]\n}\n\n";

        var result = Read(new DocumentReaderOptions(false, null, "id"), Json);

        var document = Assert.Single(result.Documents);
        Assert.Equal("orders/1", document.Id);
        Assert.Equal(2, document.Line);
        Assert.Equal(Json.Trim(), Text(document));
    }

    [Fact]
    public void Json_lines_give_one_document_per_line_and_skip_blank_lines()
    {
        const string Input = "{\"id\":\"a\",\"n\":1}\r\n\n{\"id\":\"b\",\"n\":2}\n   \n{\"id\":\"c\",\"n\":3}";

        var result = Read(new DocumentReaderOptions(true, null, "id"), Input);

        Assert.Empty(result.Errors);
        Assert.Equal(["a", "b", "c"], result.Documents.Select(d => d.Id));
        Assert.Equal([1, 3, 5], result.Documents.Select(d => d.Line));
        Assert.Equal(["{\"id\":\"a\",\"n\":1}", "{\"id\":\"b\",\"n\":2}", "{\"id\":\"c\",\"n\":3}"], result.Documents.Select(Text));
    }

    [Fact]
    public void Id_comes_from_the_top_level_property_only()
    {
        const string Input = "{\"customer\":{\"id\":\"nested\"},\"id\":\"top\"}\n{\"id\":42,\"x\":{\"id\":1}}\n{\"i\\u0064\":\"escaped\"}";

        var result = Read(new DocumentReaderOptions(true, null, "id"), Input);

        Assert.Empty(result.Errors);
        Assert.Equal(["top", "42", "escaped"], result.Documents.Select(d => d.Id));
    }

    [Fact]
    public void Missing_id_property_is_an_error_naming_the_line()
    {
        var result = Read(new DocumentReaderOptions(true, null, "id"), "{\"id\":\"a\"}\n{\"Id\":\"b\",\"customer\":{\"id\":\"c\"}}\n");

        var error = Assert.Single(result.Errors);
        Assert.Equal(2, error.Line);
        Assert.StartsWith("line 2: ", error.ToString(), StringComparison.Ordinal);
        Assert.Contains("\"id\"", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("null")]
    [InlineData("true")]
    [InlineData("{\"a\":1}")]
    [InlineData("[\"a\"]")]
    [InlineData("\"\"")]
    public void Id_property_must_be_a_non_empty_string_or_a_number(string idJson)
    {
        var result = Read(new DocumentReaderOptions(true, null, "id"), $"{{\"id\":{idJson}}}");

        var error = Assert.Single(result.Errors);
        Assert.Equal(1, error.Line);
        Assert.Contains("\"id\"", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Duplicate_id_property_is_an_error()
    {
        var result = Read(new DocumentReaderOptions(true, null, "id"), "{\"id\":\"a\",\"id\":\"b\"}");

        Assert.Contains("more than once", Assert.Single(result.Errors).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Invalid_json_is_an_error_with_its_line_and_column()
    {
        var result = Read(new DocumentReaderOptions(true, null, "id"), "{\"id\":\"a\"}\n{\"id\":\"b\",}\n{\"id\":\"c\"}\n");

        var error = Assert.Single(result.Errors);
        Assert.Equal(2, error.Line);
        Assert.Equal(11, error.Column);
        Assert.StartsWith("line 2, column 11: ", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("LineNumber", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Invalid_json_in_a_single_document_reports_the_line_in_the_input()
    {
        var result = Read(new DocumentReaderOptions(false, "x", null), "\n{\n  \"a\": 1,\n  \"b\": tru\n}");

        var error = Assert.Single(result.Errors);
        Assert.Equal(4, error.Line);
    }

    [Fact]
    public void Nothing_is_returned_when_any_document_is_invalid_and_every_problem_is_reported()
    {
        const string Input = "{\"id\":\"a\"}\n{\"id\":\"b\"\n{\"id\":\"c\"}\n[1,2]\n{\"name\":\"no id\"}\n{\"id\":\"f\"}";

        var result = Read(new DocumentReaderOptions(true, null, "id"), Input);

        Assert.False(result.Succeeded);
        Assert.Empty(result.Documents);
        Assert.Equal([2, 4, 5], result.Errors.Select(e => e.Line!.Value));
    }

    [Fact]
    public void Invalid_utf8_is_an_error_with_its_line_and_column()
    {
        byte[] input = [.. "{\"id\":\"a\"}\n{\"id\":\"b\",\"x\":\""u8, 0xFF, 0xFE, .. "\"}\n"u8];

        var result = new DocumentReader(new DocumentReaderOptions(true, null, "id")).Read(input);

        var error = Assert.Single(result.Errors);
        Assert.Equal(2, error.Line);
        Assert.Equal(16, error.Column);
        Assert.Contains("UTF-8", error.Message, StringComparison.Ordinal);
        Assert.Empty(result.Documents);
    }

    [Theory]
    [InlineData("[{\"id\":\"a\"}]", "an array")]
    [InlineData("\"text\"", "a string")]
    [InlineData("12", "a number")]
    public void A_document_must_be_an_object(string json, string found)
    {
        var result = Read(new DocumentReaderOptions(false, "x", null), json);

        var error = Assert.Single(result.Errors);
        Assert.Contains($"must be a JSON object, not {found}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Several_documents_without_lines_option_suggest_it()
    {
        var result = Read(new DocumentReaderOptions(false, null, "id"), "{\"id\":\"a\"}\n{\"id\":\"b\"}\n");

        var error = Assert.Single(result.Errors);
        Assert.Equal(2, error.Line);
        Assert.Contains("--lines", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false, "")]
    [InlineData(false, " \n ")]
    [InlineData(true, "")]
    [InlineData(true, "\n\n")]
    public void Empty_input_is_an_error(bool lines, string input)
    {
        var result = Read(new DocumentReaderOptions(lines, lines ? null : "x", lines ? "id" : null), input);

        Assert.Empty(result.Documents);
        Assert.Null(Assert.Single(result.Errors).Line);
    }

    [Fact]
    public async Task A_stream_is_read_whole_and_a_byte_order_mark_is_ignored()
    {
        var bytes = Encoding.UTF8.GetPreamble().Concat(Encoding.UTF8.GetBytes("{\"id\":\"é/1\",\"name\":\"Zoë\"}\n{\"id\":\"2\"}\n")).ToArray();
        using var stream = new MemoryStream(bytes);

        var result = await new DocumentReader(new DocumentReaderOptions(true, null, "id")).ReadAsync(stream, CancellationToken.None);

        Assert.Empty(result.Errors);
        Assert.Equal(["é/1", "2"], result.Documents.Select(d => d.Id));
        Assert.Equal("{\"id\":\"é/1\",\"name\":\"Zoë\"}", Text(result.Documents[0]));
    }

    [Theory]
    [InlineData(false, "a", "id")]
    [InlineData(false, null, null)]
    [InlineData(true, "a", null)]
    [InlineData(false, "", null)]
    public void Options_that_cannot_give_every_document_an_id_are_rejected(bool lines, string? id, string? idProperty)
    {
        var options = new DocumentReaderOptions(lines, id, idProperty);

        Assert.NotNull(options.Problem);
        Assert.Throws<ArgumentException>(() => new DocumentReader(options));
    }

    private static DocumentReadResult Read(DocumentReaderOptions options, string input) =>
        new DocumentReader(options).Read(Encoding.UTF8.GetBytes(input));

    private static string Text(InputDocument document) => Encoding.UTF8.GetString(document.Body.Span);
}
