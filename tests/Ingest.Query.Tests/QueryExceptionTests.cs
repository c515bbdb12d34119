using Ingest.Query.Syntax;

namespace Ingest.Query.Tests;

public sealed class QueryExceptionTests
{
    [Fact]
    public void The_message_starts_with_the_line_and_column()
    {
        var error = new QueryException(new SourcePosition(31, 1, 32), "expected a value after '=' but found 'order'");

        Assert.Equal("line 1, col 32: expected a value after '=' but found 'order'", error.Message);
        Assert.Equal(32, error.Position.Column);
        Assert.Equal("expected a value after '=' but found 'order'", error.Detail);
    }
}
