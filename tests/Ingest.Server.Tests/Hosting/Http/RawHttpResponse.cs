using System.Text.Json;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>A response read off a <see cref="RawHttpConnection"/>.</summary>
internal sealed record RawHttpResponse(int Status, IReadOnlyDictionary<string, string> Headers, string Body)
{
    /// <summary>Asserts an RFC 7807 problem with this status and returns its detail.</summary>
    public string ProblemDetail(int expectedStatus)
    {
        Assert.True(expectedStatus == Status, $"expected {expectedStatus}, got {Status}: {Body}");
        Assert.StartsWith("application/problem+json", Headers["Content-Type"], StringComparison.Ordinal);
        using var document = JsonDocument.Parse(Body);
        Assert.Equal(expectedStatus, document.RootElement.GetProperty("status").GetInt32());
        return document.RootElement.GetProperty("detail").GetString() ?? string.Empty;
    }
}
