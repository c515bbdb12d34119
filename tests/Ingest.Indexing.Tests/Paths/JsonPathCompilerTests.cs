using Ingest.Indexing.Paths;

namespace Ingest.Indexing.Tests.Paths;

public sealed class JsonPathCompilerTests
{
    [Theory]
    [InlineData("Status", "Status")]
    [InlineData("Customer.Name", "Customer Name")]
    [InlineData("Lines[].Product", "Lines [] Product")]
    [InlineData("Tags[]", "Tags []")]
    [InlineData("A[].B[].C", "A [] B [] C")]
    [InlineData("Matrix[][]", "Matrix [] []")]
    [InlineData("\"Ship to\".\"Zip.Code\"", "Ship to|Zip.Code")]
    [InlineData("\"say \\\"hi\\\"\".x", "say \"hi\"|x")]
    [InlineData("Größe.名前", "Größe 名前")]
    public void Valid_paths_compile_to_their_steps(string text, string expected)
    {
        Assert.True(JsonPathCompiler.TryCompile(text, out var path, out var error), error?.ToString());
        var separator = expected.Contains('|', StringComparison.Ordinal) ? "|" : " ";
        var shown = string.Join(separator, path.Steps.Select(s => s.Kind == JsonPathStepKind.Elements
            ? "[]"
            : System.Text.Encoding.UTF8.GetString(s.Utf8Name.AsSpan())));
        Assert.Equal(expected, shown);
        Assert.Equal(text, path.Text);
    }

    [Theory]
    [InlineData("", "empty path at 0")]
    [InlineData(".Name", "empty segment at 0")]
    [InlineData("Customer..Name", "empty segment at 9")]
    [InlineData("Customer.", "empty segment at 9")]
    [InlineData("Lines]", "unexpected ']' at 5")]
    [InlineData("Lines[].]", "unexpected ']' at 8")]
    [InlineData("Lines[x]", "expected ']' at 6")]
    [InlineData("Lines[", "expected ']' at 6")]
    [InlineData("[]", "empty segment at 0")]
    [InlineData("Tags.[]", "empty segment at 5")]
    [InlineData("Tags[]x", "expected '.' or '[]' at 6")]
    [InlineData("Tags[]]", "unexpected ']' at 6")]
    [InlineData("Ship to", "unexpected ' ' at 4")]
    [InlineData("a\tb", "unexpected '\\u0009' at 1")]
    [InlineData("ab\"c", "unexpected '\"' at 2")]
    [InlineData("\"open.Name", "unterminated quoted name at 0")]
    [InlineData("x.\"\"", "empty segment at 2")]
    [InlineData("\"a\\b\"", "expected '\\\"' or '\\\\' after '\\' at 2")]
    [InlineData("\"a\"b", "expected '.' or '[]' at 3")]
    public void Malformed_paths_are_rejected_with_the_position(string text, string expected)
    {
        Assert.False(JsonPathCompiler.TryCompile(text, out _, out var error));
        Assert.Equal(expected, error.ToString());
    }

    [Fact]
    public void Paths_deeper_than_the_step_limit_are_rejected()
    {
        var deep = string.Join('.', Enumerable.Repeat("a", JsonPathCompiler.MaxSteps + 1));
        Assert.False(JsonPathCompiler.TryCompile(deep, out _, out var error));
        Assert.StartsWith($"more than {JsonPathCompiler.MaxSteps} steps at", error.ToString(), StringComparison.Ordinal);
        Assert.True(JsonPathCompiler.TryCompile(string.Join('.', Enumerable.Repeat("a", JsonPathCompiler.MaxSteps)), out _, out _));
    }
}
