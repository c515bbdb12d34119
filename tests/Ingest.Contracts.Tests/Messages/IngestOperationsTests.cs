using System.Text;
using Ingest.Contracts.Messages;

namespace Ingest.Contracts.Tests.Messages;

public sealed class IngestOperationsTests
{
    [Theory]
    [InlineData("", IngestOperation.Put)]
    [InlineData("put", IngestOperation.Put)]
    [InlineData("PUT", IngestOperation.Put)]
    [InlineData("delete", IngestOperation.Delete)]
    [InlineData("Delete", IngestOperation.Delete)]
    public void Known_names_parse_case_insensitively(string header, IngestOperation expected)
    {
        Assert.True(IngestOperations.TryParse(Encoding.UTF8.GetBytes(header), out var operation));
        Assert.Equal(expected, operation);
    }

    [Theory]
    [InlineData("remove")]
    [InlineData("delete ")]
    [InlineData("dëlete")]
    public void Unknown_names_are_rejected(string header)
    {
        Assert.False(IngestOperations.TryParse(Encoding.UTF8.GetBytes(header), out _));
    }

    [Theory]
    [InlineData(IngestOperation.Put)]
    [InlineData(IngestOperation.Delete)]
    public void Wire_names_round_trip(IngestOperation operation)
    {
        var name = IngestOperations.ToWireName(operation);
        Assert.True(IngestOperations.TryParse(Encoding.UTF8.GetBytes(name), out var parsed));
        Assert.Equal(operation, parsed);
    }
}
